/* The known test patterns: the guest program (drm-pattern.c) fills the dumb buffers with
 * them, the host comparator (imgcmp.c) computes the same pixels to compare a screendump
 * with. Every pixel depends on x, y and the frame size, so a wrong stride, offset, mode
 * or format shows up. Returns 0xRRGGBB. */
#ifndef VITRINE_PATTERN_H
#define VITRINE_PATTERN_H
#include <stdint.h>

static inline uint32_t pattern_pixel(int n, int x, int y, int w, int h)
{
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        return 0xffffff; /* a white 1-pixel frame: the edges must be exactly on screen */
    /* pattern 3: pattern 1 under an opaque red box, the middle half of each side */
    if (n == 3 && x >= w / 4 && x < w / 4 + w / 2 && y >= h / 4 && y < h / 4 + h / 2)
        return 0xff0000;
    uint32_t r, g, b;
    if (n == 1 || n == 3) {
        r = (uint32_t)(x * 255 / (w - 1));
        g = (uint32_t)(y * 255 / (h - 1));
        b = ((x / 32 + y / 32) & 1) ? 0xc0 : 0x20;
    } else {
        r = (uint32_t)((h - 1 - y) * 255 / (h - 1));
        g = (uint32_t)((x ^ y) & 0xff);
        b = (uint32_t)(x * 255 / (w - 1));
    }
    return (r << 16) | (g << 8) | b;
}
#endif
