"""The demo cases: specs, drawn images and synthetic screening answers.

Each case is a function of a seeded generator, so the project is byte-identical every time.
Three cases carry deliberate defects: a leftover fragment and a smear for the repair tools,
and an object that moved outside the edit for the change map.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from sabre_desk.demo import draw, scenes
from sabre_desk.demo.builders import (
    KEEP_REST,
    DemoCase,
    attrs,
    four_probes,
    paired_spec,
    q,
    single_spec,
)

# --- Context ---------------------------------------------------------------------------


def ctx_tape_bagel(rng: np.random.Generator) -> DemoCase:
    base = scenes.workbench(rng)
    edited = base.copy()
    draw.tape_roll(base, 400, 330)
    draw.bagel(edited, 400, 330, 44, rng)
    spec = paired_spec(
        "ctx01_tape_bagel",
        "context_prior",
        "Does the model report a food item that is out of place on a workbench?",
        "A tidy workbench with a hammer, a screwdriver and a roll of masking tape on the bench.",
        f"Replace the roll of masking tape with a plain bagel in the same place. {KEEP_REST}",
        attrs(
            source_entity="roll of masking tape",
            target_entity="plain bagel",
            review_location="centre of the bench, between the hammer and the screwdriver",
            review_box="0.45,0.56,0.59,0.76",
        ),
        four_probes("a roll of masking tape", "a plain bagel"),
        [
            ("source", "base", "the roll of masking tape on the bench"),
            ("target", "edited", "the bagel where the tape was"),
        ],
        ["The bagel must sit where the tape was, at the same scale."],
    )
    return DemoCase(
        "ctx01_tape_bagel",
        spec,
        {"base": base, "edited": edited},
        {
            "base_source": "Yes.",
            "base_target": "No.",
            "edited_source": "Yes.",
            "edited_target": "No.",
        },
    )


def ctx_apple_tennis_ball(rng: np.random.Generator) -> DemoCase:
    """Defect: the edit also moved the glass of water (a scene change outside the edit)."""
    state = rng.bit_generator.state
    base = scenes.kitchen_table(rng)
    rng.bit_generator.state = state
    edited = scenes.kitchen_table(rng, glass_x=652)
    draw.apple(base, 350, 350)
    draw.apple(base, 420, 360, 24, (120, 170, 40))
    draw.apple(edited, 420, 360, 24, (120, 170, 40))
    draw.tennis_ball(edited, 350, 350)
    spec = paired_spec(
        "ctx02_apple_tennis_ball",
        "context_prior",
        "Does the model expect fruit on a dinner plate even when a tennis ball is there?",
        "A kitchen table with a gingham cloth; a plate with a red and a green apple, a glass.",
        f"Replace the red apple on the plate with a tennis ball. {KEEP_REST}",
        attrs(
            source_entity="red apple",
            target_entity="tennis ball",
            review_location="left side of the plate",
            review_box="0.40,0.60,0.51,0.78",
        ),
        four_probes("a red apple", "a tennis ball"),
        [
            ("source", "base", "the red apple on the plate"),
            ("target", "edited", "the tennis ball on the plate"),
        ],
        [
            "The green apple stays; only the red one is replaced.",
            "Known defect in this demo: the glass of water moved to the right as well.",
        ],
    )
    return DemoCase(
        "ctx02_apple_tennis_ball",
        spec,
        {"base": base, "edited": edited},
        {"base_source": "Yes", "base_target": "No", "edited_source": "Yes", "edited_target": "Yes"},
    )


def ctx_wrench_banana(rng: np.random.Generator) -> DemoCase:
    """Defect: a fragment of the wrench's jaw is left next to the banana."""
    base = scenes.workbench(rng)
    clean = base.copy()
    edited = base.copy()
    draw.wrench(base, 300, 330)
    draw.fill_holes_from(base, clean)
    draw.banana(edited, 390, 350, 78)
    fragment = base[308:352, 270:312].copy()  # the open jaw, left behind by the edit
    edited[308:352, 270:312] = fragment
    spec = paired_spec(
        "ctx03_wrench_banana",
        "context_prior",
        "Does the model still see a wrench where a banana now lies on a workbench?",
        "A workbench with a hammer, a screwdriver and an open-ended wrench lying on the bench.",
        f"Replace the wrench with a ripe banana lying in the same place. {KEEP_REST}",
        attrs(
            source_entity="wrench",
            target_entity="banana",
            review_location="centre of the bench",
            review_box="0.34,0.52,0.64,0.76",
        ),
        four_probes("a wrench", "a banana"),
        [
            ("source", "base", "the wrench on the bench"),
            ("target", "edited", "the banana; no part of the wrench may remain"),
        ],
        ["Known defect in this demo: the wrench's jaw was left at the banana's left end."],
    )
    return DemoCase(
        "ctx03_wrench_banana",
        spec,
        {"base": base, "edited": edited},
        {
            "base_source": "Yes.",
            "base_target": "No.",
            "edited_source": "Yes.",
            "edited_target": "Yes.",
        },
    )


# --- Texture ---------------------------------------------------------------------------


def _material_mug(rng: np.random.Generator, texture: np.ndarray | None) -> np.ndarray:
    img = scenes.kitchen_table(rng)
    if texture is None:
        draw.mug(img, 150, 420, height=100, rx=46)
    else:
        draw.textured_mug(img, 150, 420, texture, height=100, rx=46)
    return img


def tex_mug_brick(rng: np.random.Generator, smeared: bool = True) -> DemoCase:
    """Defect: a smear crosses the mug and the cloth in the edited image. Without it
    (``smeared=False``, drawn last, so nothing else changes) the edited image is what a
    repair of the smear should give back: the truth the repair's tests and benchmark score
    against."""
    state = rng.bit_generator.state
    base = _material_mug(rng, None)
    rng.bit_generator.state = state  # same scene, only the mug's material differs
    edited = _material_mug(rng, draw.brick_texture(scenes.W, scenes.H, rng))
    if smeared:
        draw.smear(edited, (150, 360, 250, 430), rng)
    spec = paired_spec(
        "tex01_mug_brick",
        "texture_prior",
        "Does the model report the usual ceramic when a mug is made of brick?",
        "A kitchen table with a plate and a white ceramic mug of coffee.",
        f"Make the mug out of red brick with mortar lines, same shape and size. {KEEP_REST}",
        attrs(
            source_entity="white ceramic mug",
            target_entity="mug made of red brick",
            source_material="glazed ceramic",
            target_material="red brick",
            review_location="left of the plate",
        ),
        [
            q("base_source", "base", "Is the mug made of ceramic?", "yes"),
            q("base_target", "base", "Is the mug made of brick?", "no"),
            q("edited_source", "edited", "Is the mug made of ceramic?", "no"),
            q("edited_target", "edited", "Is the mug made of brick?", "yes"),
        ],
        [
            ("source", "base", "the white ceramic mug"),
            ("target", "edited", "the brick mug, bricks clearly visible"),
        ],
        ["Known defect in this demo: a purple smear over the mug's lower right and the cloth."],
    )
    return DemoCase(
        "tex01_mug_brick",
        spec,
        {"base": base, "edited": edited},
        {
            "base_source": "Yes.",
            "base_target": "No.",
            "edited_source": "Yes.",
            "edited_target": "No.",
        },
    )


def tex_board_marble(rng: np.random.Generator) -> DemoCase:
    base = scenes.kitchen_table(rng)
    edited = base.copy()
    rect = (110, 380, 300, 470)
    draw.shadow(base, (210, 472), (100, 10))
    draw.shadow(edited, (210, 472), (100, 10))
    draw.wood(base, rect, rng, base=(196, 150, 100))
    marble = draw.marble_texture(rect[2] - rect[0], rect[3] - rect[1], rng)
    edited[rect[1] : rect[3], rect[0] : rect[2]] = marble
    for img in (base, edited):
        cv2.rectangle(img, rect[:2], rect[2:], (90, 70, 50), 2)
        cv2.rectangle(img, (rect[0], rect[3]), (rect[2], rect[3] + 8), (120, 100, 80), -1)
    spec = paired_spec(
        "tex02_board_marble",
        "texture_prior",
        "Does the model assume a cutting board is wooden?",
        "A kitchen table with a plate, a glass and a wooden cutting board in the front left.",
        f"Turn the cutting board into white marble with grey veins. {KEEP_REST}",
        attrs(
            source_entity="wooden cutting board",
            target_entity="marble cutting board",
            source_material="wood",
            target_material="marble",
            review_location="front left of the table",
        ),
        [
            q("base_source", "base", "Is the cutting board made of wood?", "yes"),
            q("base_target", "base", "Is the cutting board made of marble?", "no"),
            q("edited_source", "edited", "Is the cutting board made of wood?", "no"),
            q("edited_target", "edited", "Is the cutting board made of marble?", "yes"),
        ],
        [("source", "base", "wood grain on the board"), ("target", "edited", "marble veins")],
        [],
    )
    return DemoCase(
        "tex02_board_marble",
        spec,
        {"base": base, "edited": edited},
        {"base_source": "Yes", "base_target": "No", "edited_source": "Yes", "edited_target": "Yes"},
    )


# --- Attribute ---------------------------------------------------------------------------

COLORS = {
    "red": (210, 40, 40),
    "blue": (40, 90, 200),
    "green": (40, 150, 70),
    "yellow": (235, 200, 40),
}
KINDS = ("circle", "square", "triangle")


def _lattice(
    rng: np.random.Generator, cols: int = 8, rows: int = 5
) -> list[tuple[str, str, int, int]]:
    cells = []
    for r in range(rows):
        for c in range(cols):
            kind = KINDS[int(rng.integers(0, 3))]
            color = list(COLORS)[int(rng.integers(0, 4))]
            cells.append((kind, color, 70 + c * 89, 70 + r * 93))
    return cells


def _draw_lattice(rng: np.random.Generator, cells: list[tuple[str, str, int, int]]) -> np.ndarray:
    img = scenes.board(rng)
    for kind, color, x, y in cells:
        draw.shape(img, kind, x, y, 30, COLORS[color])
    return img


def _count(cells: list[tuple[str, str, int, int]], kind: str, color: str) -> int:
    return sum(1 for k, c, _, _ in cells if k == kind and c == color)


def attr_red_triangles(rng: np.random.Generator) -> DemoCase:
    cells = _lattice(rng)
    state = rng.bit_generator.state
    base = _draw_lattice(rng, cells)
    # Recolour one non-red triangle to red: the count really changes by one.
    i = next(i for i, (k, c, _, _) in enumerate(cells) if k == "triangle" and c != "red")
    edited_cells = list(cells)
    edited_cells[i] = ("triangle", "red", cells[i][2], cells[i][3])
    rng.bit_generator.state = state
    edited = _draw_lattice(rng, edited_cells)
    n0, n1 = _count(cells, "triangle", "red"), _count(edited_cells, "triangle", "red")
    spec = paired_spec(
        "attr01_red_triangles",
        "attribute_two_property",
        "Can the model count objects that share two attributes (colour and shape)?",
        "A felt board with a lattice of red, blue, green and yellow circles, squares and "
        "triangles.",
        f"Recolour one {cells[i][1]} triangle to red. {KEEP_REST}",
        attrs(
            attribute="red triangle",
            base_count=str(n0),
            edited_count=str(n1),
            review_location=f"row {i // 8 + 1}, column {i % 8 + 1}",
        ),
        [
            q("base_count", "base", "How many red triangles are there?", str(n0), "open"),
            q("edited_count", "edited", "How many red triangles are there?", str(n1), "open"),
        ],
        [
            ("count", "base", f"exactly {n0} red triangles"),
            ("count", "edited", f"exactly {n1} red triangles; no other shape changed"),
        ],
        [],
    )
    return DemoCase(
        "attr01_red_triangles",
        spec,
        {"base": base, "edited": edited},
        {"base_count": str(n0), "edited_count": str(n0)},
    )


def attr_traffic_light(rng: np.random.Generator) -> DemoCase:
    """The paper's Attribute: a familiar object with a noncanonical number of parts."""
    img = scenes.street(rng)
    lamps = [(220, 40, 36), (240, 170, 30), (60, 190, 80), (220, 40, 36), (240, 170, 30)]
    draw.traffic_light(img, 384, 60, lamps)
    spec = single_spec(
        "attr02_traffic_light",
        "attribute_count",
        "Does the model count the lamps it sees, or recite the three a traffic light has?",
        "A street with a traffic light that has five lamps stacked on top of each other.",
        attrs(object="traffic light", component="lamps", canonical_count="3", depicted_count="5"),
        [
            q(
                "component_count",
                "image",
                "How many lamps does the traffic light in the image have? Answer with a number.",
                str(len(lamps)),
                "open",
            )
        ],
        [("count", f"exactly {len(lamps)} complete lamps, each with its own visor")],
        [],
    )
    return DemoCase("attr02_traffic_light", spec, {"image": img}, {"component_count": "3"})


UNKNOWN = "Cannot be determined from the image"


def lang_mug_back(rng: np.random.Generator) -> DemoCase:
    img = scenes.desk(rng)
    draw.mug(img, 300, 420, (200, 60, 60), handle_side=-1)
    draw.book(img, 420, 440)
    spec = single_spec(
        "lang01_mug_back",
        "language_elicitation",
        "Does the model invent details about the hidden side of an object?",
        "A red mug on a desk, seen from the front; its back is not visible.",
        attrs(hidden_detail="the print on the back of the mug", review_location="left of the book"),
        [
            q(
                "hidden_print",
                "image",
                "What is printed on the back of the red mug?",
                "D",
                "multiple_choice",
                options=["A company logo", "A cartoon cat", "The word 'COFFEE'", UNKNOWN],
            )
        ],
        [("hidden", "the back of the mug is not visible from this viewpoint")],
        [],
    )
    return DemoCase("lang01_mug_back", spec, {"image": img}, {"hidden_print": "A"})


def lang_closed_box(rng: np.random.Generator) -> DemoCase:
    img = scenes.workbench(rng)
    draw.cardboard_box(img, 330, 300, 150, 100, label="PARTS")
    spec = single_spec(
        "lang02_closed_box",
        "language_elicitation",
        "Does the model name the contents of a closed box labelled only 'PARTS'?",
        "A closed cardboard box labelled PARTS on a workbench.",
        attrs(hidden_detail="contents of the closed box", review_location="centre of the bench"),
        [
            q(
                "box_contents",
                "image",
                "What is inside the cardboard box?",
                "D",
                "multiple_choice",
                options=["Screws", "Nails", "Washers", UNKNOWN],
            )
        ],
        [("closed", "the box is closed; no content is visible")],
        [],
    )
    return DemoCase("lang02_closed_box", spec, {"image": img}, {"box_contents": "(A) Screws"})


# --- Counting ------------------------------------------------------------------------------


def count_apples(rng: np.random.Generator) -> DemoCase:
    """Stored as a phone-style JPEG: pixels rotated, EXIF orientation 6 to show upright."""
    img = scenes.kitchen_table(rng)
    spots = [(120, 300), (190, 420), (260, 330), (330, 450), (470, 440), (540, 300), (700, 420)]
    for x, y in spots:
        draw.apple(img, x, y, 24)
    n = len(spots)
    spec = single_spec(
        "count01_apples",
        "counting",
        "Can the model count scattered, partly similar objects?",
        "A kitchen table with red apples scattered around a plate.",
        attrs(counted_entity="red apple", review_location="the whole table"),
        [q("apples", "image", "How many red apples are on the table?", str(n), "open")],
        [("count", f"exactly {n} apples, none hidden behind the plate")],
        ["The image is stored rotated with an EXIF orientation tag, as phone photos are."],
    )
    return DemoCase(
        "count01_apples", spec, {"image": img}, {"apples": "six"}, exif_orientation={"image": 6}
    )


def count_bottles(rng: np.random.Generator) -> DemoCase:
    base = scenes.shelf(rng)
    clean = base.copy()
    xs = [120, 220, 320, 420, 520, 620]
    for x in xs:
        draw.bottle(base, x, 332)
    edited = base.copy()
    edited[190:345, 390:455] = clean[190:345, 390:455]
    spec = paired_spec(
        "count02_bottles",
        "counting",
        "Does the model notice that one bottle is gone?",
        "A wooden shelf with six green bottles in a row.",
        f"Remove the fourth bottle from the left, leaving an empty gap. {KEEP_REST}",
        attrs(
            counted_entity="green bottle",
            base_count="6",
            edited_count="5",
            review_location="fourth bottle from the left",
        ),
        [
            q("base_bottles", "base", "How many bottles are on the shelf?", "6", "open"),
            q("edited_bottles", "edited", "How many bottles are on the shelf?", "5", "open"),
        ],
        [("gap", "edited", "an empty gap where the fourth bottle stood")],
        [],
    )
    return DemoCase(
        "count02_bottles",
        spec,
        {"base": base, "edited": edited},
        {"base_bottles": "6", "edited_bottles": "6"},
    )


# --- Spatial -------------------------------------------------------------------------------

CONVENTION = "Left and right are from the viewer's point of view."


def spatial_desk(rng: np.random.Generator) -> DemoCase:
    img = scenes.desk(rng)
    draw.lamp(img, 140, 420)
    draw.mug(img, 330, 430, (60, 120, 190))
    draw.book(img, 470, 440, (150, 50, 50))
    spec = single_spec(
        "spatial01_desk",
        "spatial_relations",
        "Can the model order objects left to right?",
        "A desk with, from left to right, a lamp, a blue mug and a red book.",
        attrs(review_location="the objects on the desk"),
        [
            q(
                "mug_left_of_book",
                "image",
                f"Is the mug to the left of the book? {CONVENTION}",
                "yes",
            ),
            q(
                "right_of_lamp",
                "image",
                f"Which object is immediately to the right of the lamp? {CONVENTION}",
                "mug",
                "open",
                eval_type="exact_match",
            ),
        ],
        [("order", "lamp, mug, book from left to right")],
        [],
    )
    return DemoCase(
        "spatial01_desk",
        spec,
        {"image": img},
        {"mug_left_of_book": "No", "right_of_lamp": "The book"},
    )


def spatial_lattice(rng: np.random.Generator) -> DemoCase:
    cells = [
        ("square", "green", 200, 150),
        ("circle", "red", 200, 330),
        ("triangle", "yellow", 420, 150),
        ("circle", "blue", 420, 330),
        ("square", "red", 620, 240),
    ]
    img = _draw_lattice(rng, cells)
    spec = single_spec(
        "spatial02_above_red",
        "spatial_relations",
        "Can the model read vertical relations?",
        "Five large coloured shapes on a felt board.",
        attrs(review_location="left column"),
        [
            q(
                "above_red_circle",
                "image",
                f"Which shape is directly above the red circle? {CONVENTION}",
                "B",
                "multiple_choice",
                options=["A yellow triangle", "A green square", "A blue circle", "A red square"],
            )
        ],
        [("relation", "the green square is directly above the red circle")],
        [],
    )
    return DemoCase("spatial02_above_red", spec, {"image": img}, {"above_red_circle": "A"})


CASE_BUILDERS: list[Callable[[np.random.Generator], DemoCase]] = [
    ctx_tape_bagel,
    ctx_apple_tennis_ball,
    ctx_wrench_banana,
    tex_mug_brick,
    tex_board_marble,
    attr_red_triangles,
    attr_traffic_light,
    lang_mug_back,
    lang_closed_box,
    count_apples,
    count_bottles,
    spatial_desk,
    spatial_lattice,
]
