#!/usr/bin/env python3
"""Reference outputs of the MediaPipe models for DarkroomNeural's runtime tests (RuntimeReferenceTests).

Usage (what `make neural-reference` runs):
    PYTHONPATH=out/tflite-pydeps python3 Tests/Generators/tflite_reference.py MODELS_DIR KODIM04_PNG OUT_DIR

Interpreter: Google's TFLite interpreter from ai-edge-litert 1.4.0 (pinned with numpy and pillow in
Tests/Generators/requirements-tflite.txt), with its built-in kernels only
(OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES): no XNNPACK, so the reference does not share
kernels with the runtime under test.

selfie_segmentation.tflite ends in MediaPipe's custom operator Convolution2DTransposeBias, which
TFLite's built-in kernels do not have (only its XNNPACK delegate does). So for that model the
interpreter runs a copy of the model cut before that operator (the operator count is lowered and the
subgraph output is pointed at the operator's input tensor: two in-place edits of the flatbuffer), and
the last two operators are computed here in numpy: the transposed convolution (TFLite semantics:
output = stride*(in-1) + kernel cropped by the SAME padding, before = total // 2) plus bias, then the
logistic function.

Inputs (uint8 RGB, then scaled as each model expects; Swift derives the same floats with the same
float32 operations):
- "kodim04": Kodak image 4 (a portrait), centre 512x512 crop, resized to 256x256 with Pillow's
  bilinear filter; stored as OUT_DIR/kodim04-256.rgb (raw 256*256*3 bytes);
- "pattern": p[y, x, c] = (7x + 13y + 29c) mod 256 at 256x256.
Per model: selfie 256x256: v/255; face detection 128x128: 2x2 box sum s, s/510 - 1 (range [-1, 1]);
face landmark 192x192: nearest sample p[(4y)//3, (4x)//3], v/255.

Outputs, float32 little-endian, in the model's output order, concatenated:
OUT_DIR/<model>.<input>.bin; the selfie mask is subsampled to every 4th row and column (64x64).
"""
import struct
import sys

import numpy as np
from PIL import Image
from ai_edge_litert.interpreter import Interpreter, OpResolverType


class FlatBuffer:
    """The few TFLite flatbuffer reads needed to cut the selfie model (schema.fbs field order)."""

    def __init__(self, data):
        self.b = data

    def u32(self, o):
        return struct.unpack_from("<I", self.b, o)[0]

    def i32(self, o):
        return struct.unpack_from("<i", self.b, o)[0]

    def field(self, t, i):
        vt = t - self.i32(t)
        if 4 + 2 * i >= struct.unpack_from("<H", self.b, vt)[0]:
            return None
        off = struct.unpack_from("<H", self.b, vt + 4 + 2 * i)[0]
        return t + off if off else None

    def vector(self, t, i):
        f = self.field(t, i)
        v = f + self.u32(f)
        return v, self.u32(v)

    def tables(self, t, i):
        v, n = self.vector(t, i)
        return [v + 4 + 4 * k + self.u32(v + 4 + 4 * k) for k in range(n)]

    def ints(self, t, i):
        v, n = self.vector(t, i)
        return [self.i32(v + 4 + 4 * k) for k in range(n)]


def cut_before_custom(data):
    """(model bytes ending before the last CUSTOM op, that op's input/filter/bias tensor indices,
    its stride (h, w), the index of the first operator removed)."""
    fb = FlatBuffer(bytearray(data))
    root = fb.u32(0)
    codes = fb.tables(root, 1)
    graph = fb.tables(root, 2)[0]
    ops = fb.tables(graph, 3)
    for k, op in enumerate(ops):
        f = fb.field(op, 0)
        code = codes[fb.u32(f) if f else 0]
        cf = fb.field(code, 3)
        if cf and fb.i32(cf) == 32:
            custom_index, custom_op = k, op
    x, w, bias = fb.ints(custom_op, 1)
    opts_vec, _ = fb.vector(custom_op, 5)
    padding, stride_w, stride_h = struct.unpack_from("<iii", fb.b, opts_vec + 4)
    assert padding == 1, "SAME padding expected"
    ops_vec, _ = fb.vector(graph, 3)
    struct.pack_into("<I", fb.b, ops_vec, custom_index)          # operators[:custom_index]
    out_vec, n_out = fb.vector(graph, 2)
    assert n_out == 1
    struct.pack_into("<i", fb.b, out_vec + 4, x)                  # output = the custom op's input
    return bytes(fb.b), (x, w, bias), (stride_h, stride_w)


def transpose_conv_bias(x, w, bias, stride, out_hw):
    """TFLite transposed convolution, NHWC input x, OHWI filter w, SAME output size out_hw."""
    n, h, wd, c = x.shape
    o, kh, kw, i = w.shape
    sh, sw = stride
    full = np.zeros((n, sh * (h - 1) + kh, sw * (wd - 1) + kw, o), np.float64)
    for ky in range(kh):
        for kx in range(kw):
            contrib = np.einsum("nhwc,oc->nhwo", x.astype(np.float64), w[:, ky, kx, :].astype(np.float64))
            full[:, ky:ky + sh * (h - 1) + 1:sh, kx:kx + sw * (wd - 1) + 1:sw, :] += contrib
    top = (full.shape[1] - out_hw[0]) // 2
    left = (full.shape[2] - out_hw[1]) // 2
    out = full[:, top:top + out_hw[0], left:left + out_hw[1], :] + bias.astype(np.float64)
    return out


def run(model_bytes, x, preserve=False):
    it = Interpreter(model_content=model_bytes, num_threads=1,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
                     experimental_preserve_all_tensors=preserve)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it, [it.get_tensor(d["index"]) for d in it.get_output_details()]


def inputs_for(rgb):
    """The three models' float32 inputs from one 256x256x3 uint8 image (see the module doc)."""
    selfie = (rgb.astype(np.float32) / np.float32(255))[None]
    s = rgb.astype(np.int32)
    box = s[0::2, 0::2] + s[0::2, 1::2] + s[1::2, 0::2] + s[1::2, 1::2]
    detection = (box.astype(np.float32) / np.float32(510) - np.float32(1))[None]
    idx = (np.arange(192) * 4) // 3
    landmark = (rgb[idx][:, idx].astype(np.float32) / np.float32(255))[None]
    return {"selfie_segmentation": selfie, "face_detection_short_range": detection, "face_landmark": landmark}


def main():
    models_dir, kodim04, out_dir = sys.argv[1:4]
    img = Image.open(kodim04).convert("RGB")
    wd, ht = img.size
    side = 512
    box = ((wd - side) // 2, (ht - side) // 2, (wd - side) // 2 + side, (ht - side) // 2 + side)
    kodak = np.asarray(img.crop(box).resize((256, 256), Image.BILINEAR), np.uint8)
    open(f"{out_dir}/kodim04-256.rgb", "wb").write(kodak.tobytes())
    yy, xx, cc = np.meshgrid(np.arange(256), np.arange(256), np.arange(3), indexing="ij")
    pattern = ((7 * xx + 13 * yy + 29 * cc) % 256).astype(np.uint8)

    for label, rgb in (("kodim04", kodak), ("pattern", pattern)):
        for name, x in inputs_for(rgb).items():
            data = open(f"{models_dir}/{name}.tflite", "rb").read()
            if name == "selfie_segmentation":
                cut, (xi, wi, bi), stride = cut_before_custom(data)
                it, (feature,) = run(cut, x, preserve=True)
                w = it.get_tensor(wi)
                b = it.get_tensor(bi)
                logits = transpose_conv_bias(feature, w, b, stride, (256, 256))
                mask = 0.5 * (1.0 + np.tanh(0.5 * logits))   # the logistic function, overflow-free
                outputs = [mask[:, ::4, ::4, :]]
            else:
                _, outputs = run(data, x)
            blob = b"".join(np.asarray(o, "<f4").tobytes() for o in outputs)
            open(f"{out_dir}/{name}.{label}.bin", "wb").write(blob)
            print(f"{name}.{label}.bin: {[o.shape for o in outputs]}, {len(blob)} bytes")


if __name__ == "__main__":
    main()
