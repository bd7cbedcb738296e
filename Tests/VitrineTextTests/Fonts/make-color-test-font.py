#!/usr/bin/python3
"""Writes VitrineColorTest.ttf and VitrineSbixTest.ttf beside this script: small fonts of
COLR glyphs and of an sbix bitmap for the colour glyph tests (Debian has no COLRv1 or
sbix font). Run with Debian's python3-fonttools:

    /usr/bin/python3 Tests/VitrineTextTests/Fonts/make-color-test-font.py

U+E000  COLRv0: a red square under a blue triangle (two layers)
U+E001  COLRv1: a circle filled with a linear gradient, red → yellow → blue
U+E002  COLRv1: a square with a radial gradient (two circles), reflected
U+E003  COLRv1: a circle with a sweep gradient from 0° to 270°
U+E004  COLRv1: a square rotated 30°, multiplied over a green triangle
U+E005  COLRv1: a skewed, scaled, translated square through a transform, and PaintColrGlyph of U+E003

VitrineSbixTest.ttf: U+E000 is a 20 × 20 px PNG in a 20 ppem sbix strike (four coloured
quarters), outline-free.
"""
import os
import struct
import zlib
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.colorLib.builder import buildCOLR, buildCPAL

UPEM = 1000


def glyph(draw):
    pen = TTGlyphPen(None)
    draw(pen)
    return pen.glyph()


def square(pen, x0=100, y0=0, x1=900, y1=800):
    pen.moveTo((x0, y0))
    pen.lineTo((x0, y1))
    pen.lineTo((x1, y1))
    pen.lineTo((x1, y0))
    pen.closePath()


def triangle(pen):
    pen.moveTo((100, 0))
    pen.lineTo((500, 800))
    pen.lineTo((900, 0))
    pen.closePath()


def circle(pen):
    # Four quadratic arcs with on-curve points between them.
    cx, cy, r = 500, 400, 400
    k = r * 0.4142
    pen.moveTo((cx + r, cy))
    pen.qCurveTo((cx + r, cy + k), (cx + k, cy + r), (cx, cy + r))
    pen.qCurveTo((cx - k, cy + r), (cx - r, cy + k), (cx - r, cy))
    pen.qCurveTo((cx - r, cy - k), (cx - k, cy - r), (cx, cy - r))
    pen.qCurveTo((cx + k, cy - r), (cx + r, cy - k), (cx + r, cy))
    pen.closePath()


def empty(pen):
    pass


names = [".notdef", "space", "square", "triangle", "circle", "v0", "linear", "radial", "sweep", "composite", "transform"]
outlines = {
    ".notdef": glyph(square), "space": glyph(empty), "square": glyph(square), "triangle": glyph(triangle),
    "circle": glyph(circle),
}
for name in names[5:]:
    outlines[name] = glyph(square)  # the base glyphs' own outlines show only without colour
cmap = {0x20: "space", 0xE000: "v0", 0xE001: "linear", 0xE002: "radial", 0xE003: "sweep", 0xE004: "composite", 0xE005: "transform"}

RED, YELLOW, BLUE, GREEN, PURPLE = 0, 1, 2, 3, 4
palette = [(1, 0, 0, 1), (1, 0.85, 0, 1), (0, 0.3, 1, 1), (0, 0.7, 0.2, 1), (0.5, 0, 0.6, 0.8)]


def stops(*entries):
    return [{"StopOffset": o, "PaletteIndex": i, "Alpha": a} for o, i, a in entries]


def solid(index, alpha=1.0):
    return {"Format": 2, "PaletteIndex": index, "Alpha": alpha}


colr = {
    "v0": [("square", RED), ("triangle", BLUE)],
    "linear": {
        "Format": 10, "Glyph": "circle",
        "Paint": {"Format": 4, "ColorLine": {"Extend": "pad", "ColorStop": stops((0, RED, 1), (0.5, YELLOW, 1), (1, BLUE, 1))},
                  "x0": 100, "y0": 0, "x1": 900, "y1": 800, "x2": 100, "y2": 800}},
    "radial": {
        "Format": 10, "Glyph": "square",
        "Paint": {"Format": 6, "ColorLine": {"Extend": "reflect", "ColorStop": stops((0, YELLOW, 1), (1, PURPLE, 1))},
                  "x0": 400, "y0": 500, "r0": 0, "x1": 500, "y1": 400, "r1": 250}},
    "sweep": {
        "Format": 10, "Glyph": "circle",
        "Paint": {"Format": 8, "ColorLine": {"Extend": "pad", "ColorStop": stops((0, RED, 1), (0.5, GREEN, 1), (1, BLUE, 0.5))},
                  "centerX": 500, "centerY": 400, "startAngle": 0, "endAngle": 270}},
    "composite": {
        "Format": 32, "CompositeMode": "multiply",
        "SourcePaint": {"Format": 26, "angle": 30, "centerX": 500, "centerY": 400,
                        "Paint": {"Format": 10, "Glyph": "square", "Paint": solid(YELLOW)}},
        "BackdropPaint": {"Format": 10, "Glyph": "triangle", "Paint": solid(GREEN)}},
    "transform": {
        "Format": 1, "Layers": [
            {"Format": 12, "Transform": {"xx": 0.5, "yx": 0, "xy": 0, "yy": 0.5, "dx": 0, "dy": 400},
             "Paint": {"Format": 11, "Glyph": "sweep"}},
            {"Format": 14, "dx": 450, "dy": 0,
             "Paint": {"Format": 30, "xSkewAngle": 20, "ySkewAngle": 0, "centerX": 0, "centerY": 0,
                       "Paint": {"Format": 18, "scaleX": 0.5, "scaleY": 0.5, "centerX": 0, "centerY": 0,
                                 "Paint": {"Format": 10, "Glyph": "square", "Paint": solid(PURPLE)}}}},
        ]},
}

fb = FontBuilder(UPEM, isTTF=True)
fb.setupGlyphOrder(names)
fb.setupCharacterMap(cmap)
fb.setupGlyf(outlines)
fb.setupHorizontalMetrics({n: (1000, 100 if n not in ("space",) else 0) for n in names})
fb.setupHorizontalHeader(ascent=900, descent=-200)
fb.setupNameTable({"familyName": "Vitrine Color Test", "styleName": "Regular"})
fb.setupOS2(sTypoAscender=900, sTypoDescender=-200, usWinAscent=900, usWinDescent=200)
fb.setupPost()
fb.font["CPAL"] = buildCPAL([palette])
fb.font["COLR"] = buildCOLR(colr, clipBoxes={"composite": (0, -100, 1000, 900)})
here = os.path.dirname(os.path.abspath(__file__))
fb.save(os.path.join(here, "VitrineColorTest.ttf"))


def png(width, height, pixel):
    """An RGBA PNG whose pixel (x, y) is pixel(x, y)."""
    raw = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def quarters(x, y):
    return [(255, 0, 0, 255), (0, 160, 0, 255), (0, 0, 255, 255), (255, 200, 0, 128)][(x >= 10) + 2 * (y >= 10)]


from fontTools.ttLib.tables import sbixGlyph, sbixStrike  # noqa: E402
from fontTools.ttLib import newTable  # noqa: E402

sb = FontBuilder(UPEM, isTTF=True)
sbix_names = [".notdef", "space", "quarters"]
sb.setupGlyphOrder(sbix_names)
sb.setupCharacterMap({0x20: "space", 0xE000: "quarters"})
sb.setupGlyf({n: glyph(empty) for n in sbix_names})
sb.setupHorizontalMetrics({n: (1000, 0) for n in sbix_names})
sb.setupHorizontalHeader(ascent=900, descent=-200)
sb.setupNameTable({"familyName": "Vitrine Sbix Test", "styleName": "Regular"})
sb.setupOS2(sTypoAscender=900, sTypoDescender=-200, usWinAscent=900, usWinDescent=200)
sb.setupPost()
strike = sbixStrike.Strike(ppem=20, resolution=72)
for name in sbix_names:
    strike.glyphs[name] = sbixGlyph.Glyph(glyphName=name)
strike.glyphs["quarters"] = sbixGlyph.Glyph(
    glyphName="quarters", graphicType="png ", originOffsetX=0, originOffsetY=-4, imageData=png(20, 20, quarters))
table = newTable("sbix")
table.version = 1
table.flags = 1
table.strikes = {20: strike}
sb.font["sbix"] = table
sb.save(os.path.join(here, "VitrineSbixTest.ttf"))
