"""What every folder of the framework may use, and that uses nothing of ours: where the course
repository is (paths), atomic file writes (atomic), text cut for display (shown), and the numeric
tolerances and stable softmax every comparison shares (numerics)."""
