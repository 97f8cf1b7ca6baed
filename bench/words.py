"""Vocabulary of the seeded catalogue: maker-flavoured words so names, tags and searches look real."""

ADJECTIVES = """
adjustable articulated compact customizable desktop drop-in foldable heavy-duty hexagonal interlocking
low-poly magnetic minimalist modular parametric print-in-place remixable rugged screwless slim
snap-fit stackable sturdy tiny universal vented wall-mounted weatherproof lightweight improved
""".split()

# The head nouns of Thing names; the first ones are drawn most often (a skewed, realistic catalogue).
NOUNS = """
bracket holder box clip hook stand mount case organizer gear hinge enclosure planter vase knob
adapter spool cover tray lid container shelf drawer handle spacer bushing pulley clamp insert nut
bolt washer keychain figurine miniature dragon robot skull tower castle rocket ship car drone frame
arm gripper nozzle fan duct shroud extruder bed leveler filament guide carriage belt tensioner bearing
enclosure lamp lithophane coaster ornament pendant ring bracelet whistle puzzle cube dice token coin
badge sign label stencil cookie cutter mold funnel scoop tool wrench spanner screwdriver caliper
gauge ruler protractor template jig fixture vise bench caddy rack dock charger cable tie zipper
buckle strap button bottle opener phone tablet laptop headphone speaker controller joystick keyboard
keycap camera tripod lens filter microscope telescope sensor antenna raspberry arduino esp32 board
battery pack terminal switch relay motor servo stepper propeller wheel tire axle chassis bumper
spoiler mirror grille seat pedal bell basket pot saucer feeder birdhouse hive trellis sprinkler
hose nozzle valve pipe fitting elbow tee coupler manifold
""".split()

MATERIALS = """
pla petg abs tpu nylon resin wood carbon
""".split()

PURPOSES = """
desk garage kitchen bathroom workshop garden office bedroom car bike camping travel kids classroom
lab studio aquarium terrarium greenhouse closet pantry
""".split()

VERBS = """
holds keeps organizes mounts protects supports guides secures replaces fixes upgrades stores
displays aligns clamps attaches connects routes cools lights
""".split()

FILLER = """
the a this your any with for and to of on in from under over without between around behind
easily quickly neatly firmly safely perfectly tightly securely
""".split()

PRINT_NOTES = [
    "Print with 0.2 mm layers and 20% infill.",
    "No supports needed; print flat side down.",
    "Use three perimeters for strength.",
    "Tree supports help with the overhang under the arm.",
    "Brim recommended on a cold bed.",
    "Scale to 101% if your printer shrinks PETG.",
    "Tested on a Prusa MK3S and an Ender 3.",
    "Glue the two halves with CA glue after printing.",
    "Insert M3 heat-set inserts into the holes.",
    "Pause at layer 42 to drop in the magnets.",
    "Sand lightly and prime before painting.",
    "Print the hinge pin separately at 100% infill.",
]

FIRST_NAMES = """
ada alan grace linus margaret dennis barbara ken frances edsger radia john hedy tim katherine
guido bjarne donald annie carl mary james sophie niklaus leslie fran vint whitfield jean
""".split()

LAST_NAMES = """
lovelace turing hopper torvalds hamilton ritchie liskov thompson allen dijkstra perlman mccarthy
lamarr berners johnson rossum stroustrup knuth easley sagan kenneth gosling wilson wirth lamport
bilas cerf diffie sammet
""".split()

# Terms searched by the benchmark, from common to rare (share of published Things matching, seed v3):
# a head noun (26%), description nouns (8%, 6%), two-word queries (0.7%, 0.4%), a quoted phrase (0.04%).
SEARCH_TERMS = ["bracket", "planter", "dragon", "cable clip", "hexagonal trellis", '"tiny telescope"']
