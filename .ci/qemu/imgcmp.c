/* imgcmp: compares a QEMU screendump with what should be on screen.
 *
 *   imgcmp ACTUAL (--pattern N | --expected FILE) [--diff OUT.png] [--png OUT.png]
 *
 * ACTUAL and FILE are PPM (P6, what QEMU's screendump writes by default) or PNG.
 * --pattern N computes pattern N of pattern.h at ACTUAL's size. A PNG with alpha is taken
 * composited over black (an XRGB scanout of premultiplied pixels shows exactly that).
 * --png writes ACTUAL as PNG (to look at); --diff writes, when pixels differ, the actual
 * image dimmed with every differing pixel in magenta.
 * Prints one line; exit 0 when identical, 1 when not, 2 on error.
 *
 *   cc -O2 imgcmp.c -lpng -o imgcmp
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pattern.h"

struct image { int w, h; unsigned char *rgb; };

static int fail(const char *msg, const char *path)
{
    fprintf(stderr, "imgcmp: %s: %s\n", path, msg);
    exit(2);
}

static int ppm_token(FILE *f)
{
    int c, v = 0;
    do { c = fgetc(f); if (c == '#') while (c != '\n' && c != EOF) c = fgetc(f); } while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
    if (c < '0' || c > '9') return -1;
    while (c >= '0' && c <= '9') { v = v * 10 + (c - '0'); c = fgetc(f); }
    return v; /* the single whitespace after the token is consumed */
}

static struct image load(const char *path)
{
    struct image img = {0};
    FILE *f = fopen(path, "rb");
    if (!f) fail("cannot open", path);
    unsigned char magic[8] = {0};
    size_t n = fread(magic, 1, 8, f);
    if (n >= 2 && magic[0] == 'P' && magic[1] == '6') {
        fseek(f, 2, SEEK_SET);
        img.w = ppm_token(f); img.h = ppm_token(f);
        int max = ppm_token(f);
        if (img.w <= 0 || img.h <= 0 || max != 255) fail("unsupported PPM", path);
        img.rgb = malloc((size_t)img.w * img.h * 3);
        if (fread(img.rgb, 3, (size_t)img.w * img.h, f) != (size_t)img.w * img.h) fail("short PPM", path);
        fclose(f);
        return img;
    }
    fclose(f);
    png_image p; memset(&p, 0, sizeof p); p.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&p, path)) fail(p.message, path);
    p.format = PNG_FORMAT_RGBA;
    unsigned char *rgba = malloc(PNG_IMAGE_SIZE(p));
    if (!png_image_finish_read(&p, NULL, rgba, 0, NULL)) fail(p.message, path);
    img.w = p.width; img.h = p.height;
    img.rgb = malloc((size_t)img.w * img.h * 3);
    for (size_t i = 0; i < (size_t)img.w * img.h; i++) {
        unsigned a = rgba[i * 4 + 3];
        for (int c = 0; c < 3; c++) img.rgb[i * 3 + c] = (unsigned char)((rgba[i * 4 + c] * a + 127) / 255);
    }
    free(rgba);
    return img;
}

static void save(const char *path, const struct image *img)
{
    png_image p; memset(&p, 0, sizeof p); p.version = PNG_IMAGE_VERSION;
    p.width = img->w; p.height = img->h; p.format = PNG_FORMAT_RGB;
    if (!png_image_write_to_file(&p, path, 0, img->rgb, 0, NULL)) fail(p.message, path);
}

int main(int argc, char **argv)
{
    const char *actual_path = NULL, *expected_path = NULL, *diff_path = NULL, *png_path = NULL;
    int pattern = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pattern") && i + 1 < argc) pattern = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--expected") && i + 1 < argc) expected_path = argv[++i];
        else if (!strcmp(argv[i], "--diff") && i + 1 < argc) diff_path = argv[++i];
        else if (!strcmp(argv[i], "--png") && i + 1 < argc) png_path = argv[++i];
        else if (!actual_path && argv[i][0] != '-') actual_path = argv[i];
        else { fprintf(stderr, "usage: imgcmp ACTUAL (--pattern N | --expected FILE) [--diff OUT.png] [--png OUT.png]\n"); return 2; }
    }
    if (!actual_path || (!pattern == !expected_path)) { fprintf(stderr, "usage: imgcmp ACTUAL (--pattern N | --expected FILE) [--diff OUT.png] [--png OUT.png]\n"); return 2; }
    struct image a = load(actual_path), e;
    if (png_path) save(png_path, &a);
    if (pattern) {
        e.w = a.w; e.h = a.h; e.rgb = malloc((size_t)a.w * a.h * 3);
        for (int y = 0; y < a.h; y++)
            for (int x = 0; x < a.w; x++) {
                uint32_t v = pattern_pixel(pattern, x, y, a.w, a.h);
                unsigned char *px = e.rgb + ((size_t)y * a.w + x) * 3;
                px[0] = v >> 16; px[1] = v >> 8; px[2] = v;
            }
    } else {
        e = load(expected_path);
    }
    if (a.w != e.w || a.h != e.h) {
        printf("size differs: actual %dx%d, expected %dx%d\n", a.w, a.h, e.w, e.h);
        return 1;
    }
    long differing = 0; int maxd = 0, x0 = a.w, y0 = a.h, x1 = -1, y1 = -1;
    struct image d = { a.w, a.h, malloc((size_t)a.w * a.h * 3) };
    for (int y = 0; y < a.h; y++)
        for (int x = 0; x < a.w; x++) {
            size_t i = ((size_t)y * a.w + x) * 3;
            int m = 0;
            for (int c = 0; c < 3; c++) { int v = abs(a.rgb[i + c] - e.rgb[i + c]); if (v > m) m = v; }
            if (m) {
                differing++; if (m > maxd) maxd = m;
                if (x < x0) x0 = x;
                if (y < y0) y0 = y;
                if (x > x1) x1 = x;
                if (y > y1) y1 = y;
                d.rgb[i] = 255; d.rgb[i + 1] = 0; d.rgb[i + 2] = 255;
            } else {
                for (int c = 0; c < 3; c++) d.rgb[i + c] = a.rgb[i + c] / 4;
            }
        }
    if (!differing) { printf("identical (%dx%d)\n", a.w, a.h); return 0; }
    printf("%ld of %d pixels differ (%.3f%%), max channel difference %d, in x %d..%d y %d..%d\n",
           differing, a.w * a.h, 100.0 * differing / ((double)a.w * a.h), maxd, x0, x1, y0, y1);
    if (diff_path) save(diff_path, &d);
    return 1;
}
