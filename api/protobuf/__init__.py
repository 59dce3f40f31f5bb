"""Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf), both ways, for every kind kubus
serves: `wire` (varints, length-delimited fields), `schema` (the messages, from the tables of k8s.io/api's
generated.proto in `tables/`), `codec` (a message ↔ its JSON object), `envelope` (the `k8s\\0` +
runtime.Unknown envelope, and watch frames)."""
from api.protobuf.envelope import (MEDIA_TYPE, decode_object, encodable, encode_object, read_frames, unsupported,
                                   watch_frame)

__all__ = ["MEDIA_TYPE", "decode_object", "encodable", "encode_object", "read_frames", "unsupported", "watch_frame"]
