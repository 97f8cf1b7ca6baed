"""The seeded category tree: the familiar top-level categories of design-sharing sites and their children."""

CATEGORY_TREE = {
    "3D Printing": ["3D Printer Accessories", "3D Printer Extruders", "3D Printer Parts", "3D Printers",
                    "3D Printing Tests"],
    "Art": ["2D Art", "Art Tools", "Coins & Badges", "Interactive Art", "Math Art", "Scans & Replicas",
            "Sculptures", "Signs & Logos"],
    "Fashion": ["Accessories", "Bracelets", "Costume", "Earrings", "Glasses", "Jewelry", "Keychains", "Rings"],
    "Gadgets": ["Audio", "Camera", "Computer", "Mobile Phone", "Tablets", "Video Games"],
    "Hobby": ["Automotive", "DIY", "Electronics", "Music", "R/C Vehicles", "Robotics", "Sport & Outdoors"],
    "Household": ["Bathroom", "Containers", "Decor", "Household Supplies", "Kitchen & Dining",
                  "Office Organization", "Outdoor & Garden", "Pets", "Replacement Parts"],
    "Learning": ["Biology", "Engineering", "Math", "Physics & Astronomy"],
    "Models": ["Animals", "Buildings & Structures", "Creatures", "Food & Drink", "Model Furniture",
               "Model Robots", "People", "Props", "Vehicles"],
    "Tools": ["Hand Tools", "Machine Tools", "Parts", "Tool Holders & Boxes"],
    "Toys & Games": ["Chess", "Construction Toys", "Dice", "Games", "Mechanical Toys", "Playsets", "Puzzles",
                     "Toy & Game Accessories"],
    # DECISIONS.md (compat): the original had a top-level Other; clients create Things in "other".
    "Other": [],
}
