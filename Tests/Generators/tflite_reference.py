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

Operator models: tiny models written here with the flatbuffers builder (schema.fbs field order) for
operators the MediaPipe models do not use, or use in one configuration only; OUT_DIR/op_<name>.tflite,
their input OUT_DIR/op_<name>.input.bin (seeded normal values) and outputs OUT_DIR/op_<name>.bin:
- op_transpose_conv_bias: MediaPipe's Convolution2DTransposeBias, 5x7x3 -> 10x14x4, 3x3 kernel,
  stride 2, SAME (an odd crop: 0 rows before, 1 after); reference: numpy only (TFLite's built-in
  kernels do not have it), cross-checked against TFLite's XNNPACK delegate;
- op_transpose_conv: builtin TRANSPOSE_CONV with bias, the same weights, SAME (10x14) and VALID
  (11x15); reference: the interpreter's built-in kernels, cross-checked against numpy;
- op_misc: RESIZE_BILINEAR align-corners / half-pixel / legacy, RELU6 + MEAN over H, W (keep_dims),
  CONCATENATION + RESHAPE, RELU_N1_TO_1, AVERAGE_POOL_2D 3x3 stride 2 SAME, ADD of a per-channel
  constant with fused RELU6; reference: the interpreter's built-in kernels.
"""
import struct
import sys

import flatbuffers
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


class TinyModel:
    """A single-subgraph TFLite model written with the flatbuffers builder (schema.fbs field slots:
    Model(version 0, operator_codes 1, subgraphs 2, description 3, buffers 4); OperatorCode(
    deprecated_builtin_code 0, custom_code 1, version 2, builtin_code 3); SubGraph(tensors 0,
    inputs 1, outputs 2, operators 3, name 4); Tensor(shape 0, type 1, buffer 2, name 3); Operator(
    opcode_index 0, inputs 1, outputs 2, builtin_options_type 3, builtin_options 4, custom_options 5);
    Buffer(data 0))."""

    def __init__(self):
        self.tensors = []     # (shape, type, buffer index, name)
        self.buffers = [b""]  # buffer 0: empty, by convention
        self.codes = []       # (builtin, custom, version)
        self.ops = []         # (code index, inputs, outputs, options type, options fn, custom bytes)

    def tensor(self, name, shape, data=None, ttype=0):
        buf = 0
        if data is not None:
            self.buffers.append(np.ascontiguousarray(data).tobytes())
            buf = len(self.buffers) - 1
        self.tensors.append((list(shape), ttype, buf, name))
        return len(self.tensors) - 1

    def op(self, builtin, inputs, outputs, custom=None, version=1, options_type=0, options=None, custom_options=None):
        key = (builtin, custom, version)
        if key not in self.codes:
            self.codes.append(key)
        self.ops.append((self.codes.index(key), inputs, outputs, options_type, options, custom_options))

    def build(self, inputs, outputs):
        b = flatbuffers.Builder(1024)

        def ints(values):
            b.StartVector(4, len(values), 4)
            for v in reversed(values):
                b.PrependInt32(v)
            return b.EndVector()

        def offsets(values):
            b.StartVector(4, len(values), 4)
            for v in reversed(values):
                b.PrependUOffsetTRelative(v)
            return b.EndVector()

        def raw(data):
            b.StartVector(1, len(data), 16)
            b.head = b.head - len(data)
            b.Bytes[b.head:b.head + len(data)] = data
            return b.EndVector()

        buffers = []
        for data in self.buffers:
            vec = raw(data) if data else None
            b.StartObject(1)
            if vec is not None:
                b.PrependUOffsetTRelativeSlot(0, vec, 0)
            buffers.append(b.EndObject())
        tensors = []
        for shape, ttype, buf, name in self.tensors:
            sv, nv = ints(shape), b.CreateString(name)
            b.StartObject(4)
            b.PrependUOffsetTRelativeSlot(0, sv, 0)
            b.PrependInt8Slot(1, ttype, -1)
            b.PrependUint32Slot(2, buf, 0xFFFFFFFF)
            b.PrependUOffsetTRelativeSlot(3, nv, 0)
            tensors.append(b.EndObject())
        ops = []
        for code, ins, outs, otype, ofn, custom in self.ops:
            iv, ov = ints(ins), ints(outs)
            opts = ofn(b) if ofn else None
            cv = raw(custom) if custom else None
            b.StartObject(6)
            b.PrependUint32Slot(0, code, 0xFFFFFFFF)
            b.PrependUOffsetTRelativeSlot(1, iv, 0)
            b.PrependUOffsetTRelativeSlot(2, ov, 0)
            if opts is not None:
                b.PrependUint8Slot(3, otype, 0xFF)
                b.PrependUOffsetTRelativeSlot(4, opts, 0)
            if cv is not None:
                b.PrependUOffsetTRelativeSlot(5, cv, 0)
            ops.append(b.EndObject())
        codes = []
        for builtin, custom, version in self.codes:
            cs = b.CreateString(custom) if custom else None
            b.StartObject(4)
            b.PrependInt8Slot(0, min(builtin, 127), -1)
            if cs is not None:
                b.PrependUOffsetTRelativeSlot(1, cs, 0)
            b.PrependInt32Slot(2, version, -1)
            b.PrependInt32Slot(3, builtin, -1)
            codes.append(b.EndObject())
        tv, iv, ov, opv, name = offsets(tensors), ints(inputs), ints(outputs), offsets(ops), b.CreateString("main")
        b.StartObject(5)
        b.PrependUOffsetTRelativeSlot(0, tv, 0)
        b.PrependUOffsetTRelativeSlot(1, iv, 0)
        b.PrependUOffsetTRelativeSlot(2, ov, 0)
        b.PrependUOffsetTRelativeSlot(3, opv, 0)
        b.PrependUOffsetTRelativeSlot(4, name, 0)
        graph = b.EndObject()
        cv, gv, bv, desc = offsets(codes), offsets([graph]), offsets(buffers), b.CreateString("darkroom operator test")
        b.StartObject(5)
        b.PrependUint32Slot(0, 3, 0)
        b.PrependUOffsetTRelativeSlot(1, cv, 0)
        b.PrependUOffsetTRelativeSlot(2, gv, 0)
        b.PrependUOffsetTRelativeSlot(3, desc, 0)
        b.PrependUOffsetTRelativeSlot(4, bv, 0)
        b.Finish(b.EndObject(), file_identifier=b"TFL3")
        return bytes(b.Output())


def table(*slots):
    """An options table builder: slots are (kind, slot, value) with kind in 'i8', 'i32', 'bool'."""
    def make(b):
        b.StartObject(max(s for _, s, _ in slots) + 1)
        for kind, slot, value in slots:
            {"i8": b.PrependInt8Slot, "u8": b.PrependUint8Slot, "i32": b.PrependInt32Slot,
             "bool": b.PrependBoolSlot}[kind](slot, value, 0 if kind != "bool" else False)
        return b.EndObject()
    return make


def run_model(data, x, delegate=False):
    it = Interpreter(model_content=data, num_threads=1,
                     experimental_op_resolver_type=OpResolverType.AUTO if delegate
                     else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def operator_models(out_dir):
    rng = np.random.default_rng(18)
    f32 = np.float32
    x = rng.normal(size=(1, 5, 7, 3)).astype(f32)
    w = rng.normal(size=(4, 3, 3, 3)).astype(f32)
    bias = rng.normal(size=(4,)).astype(f32)
    numpy_same = transpose_conv_bias(x, w, bias, (2, 2), (10, 14))
    numpy_valid = transpose_conv_bias(x, w, bias, (2, 2), (11, 15))

    # Convolution2DTransposeBias (custom options: TfLiteTransposeConvParams {padding 1 = SAME, stride_w, stride_h}).
    m = TinyModel()
    xi, wi, bi = m.tensor("x", x.shape), m.tensor("w", w.shape, w), m.tensor("b", bias.shape, bias)
    yi = m.tensor("y", (1, 10, 14, 4))
    m.op(32, [xi, wi, bi], [yi], custom="Convolution2DTransposeBias", custom_options=struct.pack("<iii", 1, 2, 2))
    custom = m.build([xi], [yi])
    delegate = run_model(custom, x, delegate=True)[0]
    print(f"op_transpose_conv_bias: numpy vs TFLite XNNPACK delegate max |diff| {np.abs(delegate - numpy_same).max():.2e}")
    cases = [("transpose_conv_bias", custom, x, [numpy_same.astype(f32)])]

    # TRANSPOSE_CONV (output_shape, weights, input, bias), TransposeConvOptions (union type 49:
    # padding 0 SAME / 1 VALID, stride_w, stride_h), version 3 (with bias).
    m = TinyModel()
    xi, wi, bi = m.tensor("x", x.shape), m.tensor("w", w.shape, w), m.tensor("b", bias.shape, bias)
    outs = []
    for label, padding, shape in (("same", 0, (1, 10, 14, 4)), ("valid", 1, (1, 11, 15, 4))):
        si = m.tensor(f"shape_{label}", (4,), np.array(shape, np.int32), ttype=2)
        yi = m.tensor(f"y_{label}", shape)
        m.op(67, [si, wi, xi, bi], [yi], version=3, options_type=49,
             options=table(("i8", 0, padding), ("i32", 1, 2), ("i32", 2, 2)))
        outs.append(yi)
    data = m.build([xi], outs)
    ref = run_model(data, x)
    print(f"op_transpose_conv: interpreter vs numpy max |diff| SAME {np.abs(ref[0] - numpy_same).max():.2e}, "
          f"VALID {np.abs(ref[1] - numpy_valid).max():.2e}")
    cases.append(("transpose_conv", data, x, ref))

    # Miscellaneous operators on a 6x8x4 input.
    x = (3 * rng.normal(size=(1, 6, 8, 4))).astype(f32)
    m = TinyModel()
    xi = m.tensor("x", x.shape)
    outs = []
    for label, (h, w_), align, half in (("align", (11, 15), True, False), ("half", (12, 16), False, True),
                                        ("legacy", (9, 13), False, False)):
        si = m.tensor(f"size_{label}", (2,), np.array([h, w_], np.int32), ttype=2)
        yi = m.tensor(f"resize_{label}", (1, h, w_, 4))
        m.op(23, [xi, si], [yi], options_type=15, options=table(("bool", 2, align), ("bool", 3, half)))
        outs.append(yi)
    r6 = m.tensor("relu6", x.shape)
    m.op(21, [xi], [r6])
    axes = m.tensor("axes", (2,), np.array([1, 2], np.int32), ttype=2)
    mean = m.tensor("mean", (1, 1, 1, 4))
    m.op(40, [r6, axes], [mean], options_type=27, options=table(("bool", 0, True)))
    outs.append(mean)
    cat = m.tensor("concat", (1, 6, 8, 8))
    m.op(2, [xi, r6], [cat], options_type=10, options=table(("i32", 0, 3)))
    shape = m.tensor("new_shape", (3,), np.array([1, 48, 8], np.int32), ttype=2)
    flat = m.tensor("flat", (1, 48, 8))
    m.op(22, [cat, shape], [flat], options_type=17, options=None)
    outs.append(flat)
    n1 = m.tensor("relu_n1_to_1", x.shape)
    m.op(20, [xi], [n1])
    outs.append(n1)
    pool = m.tensor("avg_pool", (1, 3, 4, 4))
    m.op(1, [xi], [pool], options_type=5,
         options=table(("i8", 0, 0), ("i32", 1, 2), ("i32", 2, 2), ("i32", 3, 3), ("i32", 4, 3)))
    outs.append(pool)
    ci = m.tensor("channel_offsets", (4,), np.array([0.5, -1, 2, 7], f32))
    added = m.tensor("add_relu6", x.shape)
    m.op(0, [xi, ci], [added], options_type=11, options=table(("i8", 0, 3)))
    outs.append(added)
    data = m.build([xi], outs)
    cases.append(("misc", data, x, run_model(data, x)))

    for name, data, x, outputs in cases:
        open(f"{out_dir}/op_{name}.tflite", "wb").write(data)
        open(f"{out_dir}/op_{name}.input.bin", "wb").write(np.asarray(x, "<f4").tobytes())
        blob = b"".join(np.asarray(o, "<f4").tobytes() for o in outputs)
        open(f"{out_dir}/op_{name}.bin", "wb").write(blob)
        print(f"op_{name}: model {len(data)} bytes, outputs {[o.shape for o in outputs]}")


def main():
    models_dir, kodim04, out_dir = sys.argv[1:4]
    operator_models(out_dir)
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
