"""Edition data of Dice King (a package so that its JSON files ship in wheels)."""
