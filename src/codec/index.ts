// The `./codec` entry point: an optional AES-256-GCM payload codec (with key ids for rotation) for the client and the
// worker's data converter; `tool-contract codec-server` serves it to the Temporal UI.
export {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  parseCodecKeys,
  type CodecKey,
} from './aes-gcm-codec.js';
export { createCodecServer, MIN_CODEC_TOKEN_LENGTH, type CodecServerOptions } from './codec-server.js';
