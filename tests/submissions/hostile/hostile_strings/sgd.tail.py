raise ModuleNotFoundError("No module named '[/]\x1b[2J" + "m" * 3000 + "'", name="[/]" + "m" * 3000)
