#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_TRUETYPE_TABLES_H
#include FT_SIZES_H
#include FT_OUTLINE_H
#include FT_SYNTHESIS_H
#include FT_COLOR_H

/* Function-like macros that Swift cannot import, as constants. */
static const FT_Int32 vitrine_ft_load_target_light = FT_LOAD_TARGET_LIGHT;
static const FT_Int32 vitrine_ft_load_no_hinting = FT_LOAD_NO_HINTING;
static const FT_Int32 vitrine_ft_load_no_bitmap = FT_LOAD_NO_BITMAP;
static const FT_Int32 vitrine_ft_load_no_scale = FT_LOAD_NO_SCALE;
static const FT_Int32 vitrine_ft_load_color = FT_LOAD_COLOR;
static const FT_Glyph_Format vitrine_ft_glyph_format_outline = FT_GLYPH_FORMAT_OUTLINE;
static const FT_Glyph_Format vitrine_ft_glyph_format_bitmap = FT_GLYPH_FORMAT_BITMAP;
