"""The face-parts editor and the pure edits behind it (faces.swap / rotate / scramble)."""

import pytest

from capsedu.data import faces, sprites
from capsedu.widgets import PartsEditor


def by_kind(parts):
    return {p.kind: p for p in parts}


def test_swap_exchanges_positions_only():
    parts = faces.face_parts(angle=10)
    swapped = by_kind(faces.swap(parts, "nose", "mouth"))
    before = by_kind(parts)
    assert (swapped["nose"].x, swapped["nose"].y) == (before["mouth"].x, before["mouth"].y)
    assert (swapped["mouth"].x, swapped["mouth"].y) == (before["nose"].x, before["nose"].y)
    assert swapped["left_eye"] == before["left_eye"]


def test_rotate_turns_positions_and_angles_together():
    parts = faces.rotate(faces.face_parts(), 90)
    # rotating a face by 90° equals drawing the face at angle 90° (equivariance of face_parts)
    for got, want in zip(parts, faces.face_parts(angle=90), strict=True):
        assert got.kind == want.kind
        assert (got.x, got.y, got.angle) == pytest.approx((want.x, want.y, want.angle))


def test_scramble_is_seeded_and_keeps_the_parts():
    parts = faces.face_parts()
    a, b = faces.scramble(parts, 1), faces.scramble(parts, 1)
    assert a == b and a != faces.scramble(parts, 2)
    assert sorted(p.kind for p in a) == sorted(faces.PART_KINDS)


def test_editor_sliders_follow_the_selected_part_and_edit_it():
    seen = []
    editor = PartsEditor(on_change=seen.append)
    editor.part.value = "mouth"
    mouth = by_kind(editor.parts)["mouth"]
    assert (editor.x.value, editor.y.value) == pytest.approx((mouth.x, mouth.y))
    assert seen == []  # selecting a part is not an edit
    editor.x.value = 0.2
    assert by_kind(editor.parts)["mouth"].x == pytest.approx(0.2)
    assert by_kind(seen[-1])["mouth"].x == pytest.approx(0.2)
    editor.swap_with.value = "nose"
    editor.swap_button.click()
    assert by_kind(editor.parts)["nose"].x == pytest.approx(0.2)
    editor.reset_button.click()
    assert editor.parts == list(faces.face_parts())


def test_editor_buttons_scramble_and_rotate():
    editor = PartsEditor()
    editor.rotate_button.click()
    assert all(p.angle == pytest.approx(30) for p in editor.parts)
    editor.scramble_button.click()
    assert editor.parts != faces.rotate(faces.face_parts(), 30)


def test_editor_rejects_values_out_of_range():
    editor = PartsEditor()
    with pytest.raises(ValueError, match=r"move\(\): x must be a finite number >= 0 and <= 1"):
        editor.move("nose", x=1.5)


def test_editor_offers_only_the_parts_the_scene_holds():
    three = [p for p in faces.face_parts() if p.kind != "left_eye"]
    editor = PartsEditor(three)
    assert editor.part.options == ("right_eye", "nose", "mouth")
    assert editor.part.value == "right_eye"
    assert editor.x.value == pytest.approx(by_kind(three)["right_eye"].x)
    editor.reset_button.click()  # back to the three parts, no error
    seen = []
    editor = PartsEditor(on_change=seen.append)
    editor.set_parts(three)  # a learner deletes a part
    assert editor.part.options == ("right_eye", "nose", "mouth") and len(seen[-1]) == 3
    editor.swap("nose", "mouth")
    editor.set_parts(faces.face_parts())  # and brings it back
    assert editor.part.options == faces.PART_KINDS


def test_editor_refuses_a_scene_without_face_parts():
    with pytest.raises(ValueError, match="at least one face part"):
        PartsEditor().set_parts([sprites.Part("stroke", 0.5, 0.5)])
