// Replaced by the rasterizer branch.
