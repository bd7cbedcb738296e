#ifndef VITRINE_CWEBP_SHIM_H
#define VITRINE_CWEBP_SHIM_H

/* libwebp (stills), libwebpdemux (animations) and libwebpmux (the tests' animated
   encoder), for VitrineImage. */

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

/* The ABI-checked initializers are macros or inline functions around versioned calls:
   plain functions for Swift. */
static inline int vitrine_webp_init_decoder_config(WebPDecoderConfig *config) { return WebPInitDecoderConfig(config); }
static inline int vitrine_webp_anim_decoder_options_init(WebPAnimDecoderOptions *options) { return WebPAnimDecoderOptionsInit(options); }
static inline WebPAnimDecoder *vitrine_webp_anim_decoder_new(const WebPData *data, const WebPAnimDecoderOptions *options) {
    return WebPAnimDecoderNew(data, options);
}
static inline WebPDemuxer *vitrine_webp_demux_partial(const WebPData *data, WebPDemuxState *state) {
    return WebPDemuxPartial(data, state);
}
static inline int vitrine_webp_anim_encoder_options_init(WebPAnimEncoderOptions *options) { return WebPAnimEncoderOptionsInit(options); }
static inline WebPAnimEncoder *vitrine_webp_anim_encoder_new(int width, int height, const WebPAnimEncoderOptions *options) {
    return WebPAnimEncoderNew(width, height, options);
}
static inline int vitrine_webp_config_init(WebPConfig *config) { return WebPConfigInit(config); }
static inline int vitrine_webp_picture_init(WebPPicture *picture) { return WebPPictureInit(picture); }

#endif
