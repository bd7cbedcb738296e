#ifndef VITRINE_CJPEG_SHIM_H
#define VITRINE_CJPEG_SHIM_H

/* libjpeg(-turbo), for VitrineImage's JPEG decoder and the tests' encoder.

   libjpeg reports a fatal error by calling error_exit, which must not return: it longjmps
   back into the shim function that made the failing call, and the message is kept for
   Swift to read. Each function here sets its own jump point, so none returns into a frame
   that is gone; Swift never sees a longjmp. */

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct vitrine_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static inline void vitrine_jpeg_error_exit(j_common_ptr info) {
    struct vitrine_jpeg_error *error = (struct vitrine_jpeg_error *)info->err;
    (*info->err->format_message)(info, error->message);
    longjmp(error->jump, 1);
}

/* A file that ends early is only a warning to libjpeg (it pads with grey): fatal here. */
static inline void vitrine_jpeg_emit_message(j_common_ptr info, int level) {
    if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) vitrine_jpeg_error_exit(info);
}

/* Sets up `info` for decoding with `error` as its error manager. 0 on failure. */
static inline int vitrine_jpeg_create(struct jpeg_decompress_struct *info, struct vitrine_jpeg_error *error) {
    memset(info, 0, sizeof *info);
    info->err = jpeg_std_error(&error->manager);
    error->manager.error_exit = vitrine_jpeg_error_exit;
    error->manager.emit_message = vitrine_jpeg_emit_message;
    error->message[0] = 0;
    if (setjmp(error->jump)) return 0;
    jpeg_create_decompress(info);
    return 1;
}

/* Reads the header of `size` bytes at `data` (which must outlive the decoding), keeping
   APP1 markers (EXIF). 0 on failure. */
static inline int vitrine_jpeg_read_header(struct jpeg_decompress_struct *info, struct vitrine_jpeg_error *error,
                                           const unsigned char *data, unsigned long size) {
    if (setjmp(error->jump)) return 0;
    jpeg_mem_src(info, data, size);
    jpeg_save_markers(info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(info, TRUE);
    return 1;
}

/* Starts decompressing at scale_num/8 into `space`; the output size is then in
   info->output_width and output_height. 0 on failure. */
static inline int vitrine_jpeg_start(struct jpeg_decompress_struct *info, struct vitrine_jpeg_error *error,
                                     unsigned int scale_num, J_COLOR_SPACE space) {
    if (setjmp(error->jump)) return 0;
    info->scale_num = scale_num;
    info->scale_denom = 8;
    info->out_color_space = space;
    info->dct_method = JDCT_ISLOW;
    jpeg_start_decompress(info);
    return 1;
}

/* Reads the rest of the scanlines into rows `stride` bytes apart starting at `rows`. 0
   on failure. */
static inline int vitrine_jpeg_read_all(struct jpeg_decompress_struct *info, struct vitrine_jpeg_error *error,
                                        unsigned char *rows, size_t stride) {
    if (setjmp(error->jump)) return 0;
    while (info->output_scanline < info->output_height) {
        JSAMPROW row = rows + (size_t)info->output_scanline * stride;
        jpeg_read_scanlines(info, &row, 1);
    }
    jpeg_finish_decompress(info);
    return 1;
}

/* The first saved APP1 marker's bytes, or NULL. */
static inline const unsigned char *vitrine_jpeg_app1(struct jpeg_decompress_struct *info, unsigned int *length) {
    for (jpeg_saved_marker_ptr m = info->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1) { *length = m->data_length; return m->data; }
    }
    return NULL;
}

/* Encodes `width`×`height` RGB (3 bytes a pixel, rows `stride` bytes apart) as a baseline
   JPEG of `quality`, with `app1` (`app1_length` bytes, none when 0) written as an APP1
   marker. Returns the data (free() it) and its size, or NULL with `error->message`. */
static inline unsigned char *vitrine_jpeg_encode_rgb(const unsigned char *rgb, int width, int height, size_t stride, int quality,
                                                    const unsigned char *app1, unsigned int app1_length,
                                                    struct vitrine_jpeg_error *error, unsigned long *size) {
    struct jpeg_compress_struct info;
    unsigned char *volatile out = NULL;
    unsigned long out_size = 0;
    memset(&info, 0, sizeof info);
    info.err = jpeg_std_error(&error->manager);
    error->manager.error_exit = vitrine_jpeg_error_exit;
    error->message[0] = 0;
    if (setjmp(error->jump)) {
        jpeg_destroy_compress(&info);
        free(out);
        return NULL;
    }
    jpeg_create_compress(&info);
    unsigned char *buffer = NULL;
    jpeg_mem_dest(&info, &buffer, &out_size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    if (app1_length > 0) jpeg_write_marker(&info, JPEG_APP0 + 1, app1, app1_length);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)info.next_scanline * stride);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    out = buffer;
    jpeg_destroy_compress(&info);
    *size = out_size;
    return out;
}

#endif
