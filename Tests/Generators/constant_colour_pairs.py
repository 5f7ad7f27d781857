#!/usr/bin/env python3
"""Synthetic flash / no-flash DNG pairs with known material colour, for `darkroom constant-colour`.

Scene: the 24 spectral reflectances of the ColorChecker (colour-science's "ColorChecker N Ohta")
as 28x28 px patches on a 6x4 grid with 4 px neutral gaps (flat 20 % reflectance), 192x128 px.

Light:
- ambient = a mixture of CIE illuminant A (tungsten) and CIE FL2 (cool-white fluorescent) whose
  fluorescent share rises from 0 on the left to 1 on the right as a logistic curve centred on
  the frame (1 / (1 + exp(-(x - 96) / 12))), its level rising 0.9 -> 1.1 from top to bottom;
- flash = CIE LED-B4 (phosphor-converted white LED, ~5100 K: a phone-like flash), with a
  1 / (1 + r^2 / r0^2) fall-off around the frame's centre, a flash shadow (a vertical strip the
  flash does not reach), flash specular highlights (neutral, reflectance-independent; one of
  them clips) and an ambient highlight (a lamp reflection in both frames, clipped in the ambient
  frame).
Each illuminant is scaled so a perfect white reflector has luminance Y = 1 under it.

Camera: colour-science's published Nikon D5100 spectral sensitivities (NPL measurements), an
RGGB Bayer mosaic, 14-bit (black 512, white 16383), photon shot noise (full well 24000 e- at
ISO 100, halving per ISO stop) and Gaussian read noise (2.5 DN), rounded to integers. The
NoiseProfile tag of each frame is the exact model of its noise (DNG 1.7 51041: variance of a
normalised 0..1 value x is S*x + O). Exposure: ambient ISO 400, 1/30 s, f/2; flash ISO 200,
1/60 s, f/2 (the ambient part of the flash frame is 1/4 of the ambient frame's).

Profiles (calibrated as a camera maker would, on reflectances no test scores: the RAW to ACES
training set minus near-duplicates of the scored charts' patches, `training_set`; XYZ -> camera
matrices fitted by least squares under each light, normalised so the light's white has max
camera value 1):
- ambient frame: ColorMatrix1 for CIE A (CalibrationIlluminant1 17), ColorMatrix2 for D65 (21);
- flash frame: ColorMatrix1 for the flash, CalibrationIlluminant1 255 (Other) with
  IlluminantData1 = the flash's x-y chromaticity (DNG 1.6), and ForwardMatrix1 fitted from the
  training set's camera RGB under the flash to its XYZ under D65 (`forward_matrix`): a profile
  that renders material colour.
The validation pairs (`other`, `other-dim`) use another chart (PMC), other lights and seeds; the
spec's `chart`, `ambient`, `flash_light` and `flash_centre` keys choose them.
The fluorescent light flickers: the flash frame's 1/60 s exposure catches 1.05 times its mean
(FLICKER), which no metadata records: the error real pairs have in the ambient subtraction.

Truth per pair (beside the DNGs): NAME.json (layout, per-patch XYZ under D65 with the perfect
white at Y = 1, exposure facts, the masks' shapes), NAME.labels.u8 (patch index 0-23 per pixel,
255 in the gaps), NAME.ratio.f32 (little-endian float32 per pixel: flash-only luminance over
ambient luminance, both as they reach the flash frame) and NAME.mask.u8 (bit 1 flash shadow,
bit 2 flash specular, bit 4 clipped in either frame (dilated by 1 px), bit 8 ambient highlight).

The DNGs are written by tifffile (not by Darkroom's own DNG writer), so reading them is
independent evidence. led-b4.csv is the flash's spectrum (CIE LED-B4, 5 nm) for --flash-spectrum;
flash.dcp holds the same flash profile as a DNG camera profile file (for --flash-profile).
Usage: constant_colour_pairs.py OUTDIR (see README.md beside this file).
"""

import json
import os
import sys

import numpy as np
import colour
import tifffile

WIDTH, HEIGHT = 192, 128
PATCH, GAP = 28, 4
BLACK, WHITE = 512, 16383
READ_NOISE_DN = 2.5
FULL_WELL_ISO100 = 24000.0
FLICKER = 1.05
SHAPE = colour.SpectralShape(380, 780, 5)


CHARTS = {
    # The scored chart of the main pairs.
    "colorchecker": lambda: [sd for sd in colour.SDS_COLOURCHECKERS["ColorChecker N Ohta"].values()],
    # The validation chart: the 24 chromatic patches of colour-science's "PMC" set (skin, food,
    # unitary colours; its 6 neutrals left out).
    "pmc": lambda: list(colour.SDS_COLOURCHECKERS["PMC"].values())[:24],
}
# Reflectances closer than this (RMS over 380-780 nm) to a patch of either chart are left out of
# the training set, so no profile has seen a material a test scores.
TRAINING_EXCLUSION_RMS = 0.02


def training_set(scored):
    """The profiles' training reflectances: the 190 of the RAW to ACES training set
    (colour-science's `read_training_data_rawtoaces_v1`, as rawtoaces fits a camera's IDT), minus
    those within TRAINING_EXCLUSION_RMS of any scored patch (`scored`: k x n)."""
    t = colour.characterisation.read_training_data_rawtoaces_v1().copy().align(SHAPE).values.T
    d = np.sqrt(((t[:, None, :] - scored[None]) ** 2).mean(-1)).min(1)
    return t[d >= TRAINING_EXCLUSION_RMS]


def spectra(chart="colorchecker"):
    """Reflectances (25 x n: 24 patches + the gap grey), lights (dict of n), camera (n x 3), CMFs,
    training reflectances (m x n)."""
    refl = [sd.copy().align(SHAPE).values for sd in CHARTS[chart]()]
    refl.append(np.full(len(refl[0]), 0.20))
    refl = np.array(refl)
    scored = np.array([sd.copy().align(SHAPE).values for c in CHARTS.values() for sd in c()])
    cmfs = colour.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"].copy().align(SHAPE).values
    cam = np.nan_to_num(colour.MSDS_CAMERA_SENSITIVITIES["Nikon 5100 (NPL)"].copy().align(SHAPE).values)
    lights = {}
    for name in ["A", "FL2", "FL11", "LED-B1", "LED-B4", "LED-B5", "D65"]:
        e = colour.SDS_ILLUMINANTS[name].copy().align(SHAPE).values
        lights[name] = e / float(e @ cmfs[:, 1])  # perfect white: Y = 1
    cam = cam / (lights["D65"] @ cam).max()  # the D65 white: camera values of max 1
    return refl, lights, cam, cmfs, training_set(scored)


def xyz_under(refl, light, cmfs):
    return (refl * light) @ cmfs


def cam_under(refl, light, cam):
    return (refl * light) @ cam


def color_matrix(train, light, cam, cmfs):
    """XYZ -> camera (3x3) by least squares over the training reflectances, scaled as DNG expects
    (the light's white maps to camera values of max 1)."""
    xyz = xyz_under(train, light, cmfs)
    rgb = cam_under(train, light, cam)
    m, *_ = np.linalg.lstsq(xyz, rgb, rcond=None)
    m = m.T
    white = m @ (light @ cmfs)
    return m / white.max()


def forward_matrix(train, light, cam, cmfs):
    """ForwardMatrix for a constant-colour flash profile: white-balanced camera RGB under `light`
    -> the training reflectances' XYZ under D65, Bradford-adapted to D50 (so it renders material
    colour, not the colour under the flash), fitted by minimising the mean CIEDE2000 over the
    training set (scipy Powell) with the white held exact, as profiling tools fit. The training
    set never contains a scored patch (`training_set`)."""
    from scipy.optimize import minimize
    rgb = cam_under(train, light, cam)
    wp = colour.CCS_ILLUMINANTS["CIE 1931 2 Degree Standard Observer"]["D65"]
    d65 = colour.SDS_ILLUMINANTS["D65"].copy().align(SHAPE).values
    d65 = d65 / float(d65 @ cmfs[:, 1])
    target = xyz_under(train, d65, cmfs)
    wcam = light @ cam
    wxyz = d65 @ cmfs
    def full(p):
        m = p.reshape(3, 3).copy()
        m[:, 2] = (wxyz - m[:, :2] @ wcam[:2]) / wcam[2]
        return m
    def cost(p):
        e = (full(p) @ rgb.T).T
        return float(np.mean(colour.delta_E(colour.XYZ_to_Lab(e, wp), colour.XYZ_to_Lab(target, wp), method="CIE 2000")))
    start, *_ = np.linalg.lstsq(rgb, target, rcond=None)
    res = minimize(cost, start.T.flatten(), method="Powell", options=dict(maxiter=20000, xtol=1e-7, ftol=1e-9))
    m = full(res.x)
    bradford = colour.adaptation.matrix_chromatic_adaptation_VonKries(
        colour.xy_to_XYZ(wp), colour.xy_to_XYZ(colour.CCS_ILLUMINANTS["CIE 1931 2 Degree Standard Observer"]["D50"]),
        transform="Bradford")
    fm = bradford @ m @ np.diag(wcam)
    d50 = colour.xy_to_XYZ(colour.CCS_ILLUMINANTS["CIE 1931 2 Degree Standard Observer"]["D50"])
    return fm * (d50[1] / (fm @ np.ones(3))[1])


def labels():
    lab = np.full((HEIGHT, WIDTH), 255, np.uint8)
    for i in range(24):
        r, c = divmod(i, 6)
        x0, y0 = GAP // 2 + c * (PATCH + GAP), GAP // 2 + r * (PATCH + GAP)
        lab[y0:y0 + PATCH, x0:x0 + PATCH] = i
    return lab


def disk(cx, cy, radius):
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    return (xx - cx) ** 2 + (yy - cy) ** 2 <= radius ** 2


def render(spec):
    refl, lights, cam, cmfs, train = spectra(spec.get("chart", "colorchecker"))
    amb_left, amb_right = spec.get("ambient", ["A", "FL2"])
    flash_name = spec.get("flash_light", "LED-B4")
    lab = labels()
    idx = np.where(lab == 255, 24, lab).astype(int)
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH].astype(float)
    fluor = 1 / (1 + np.exp(-(xx - WIDTH / 2) / spec.get("mix_width", 12.0)))
    level = 0.9 + 0.2 * yy / (HEIGHT - 1)
    cx, cy = spec.get("flash_centre", [WIDTH / 2, HEIGHT / 2])
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / spec["r0"] ** 2
    flash = spec["flash"] / (1 + r2)
    shadow = np.zeros((HEIGHT, WIDTH), bool)
    if spec.get("shadow"):
        x0, x1 = spec["shadow"]
        shadow[:, x0:x1] = True
    flash = np.where(shadow, 0.0, flash)
    specular = np.zeros((HEIGHT, WIDTH))
    for (cx, cy, rad, amount) in spec.get("speculars", []):
        specular = np.where(disk(cx, cy, rad), amount, specular)
    highlight = np.zeros((HEIGHT, WIDTH))
    for (cx, cy, rad, amount) in spec.get("highlights", []):
        highlight = np.where(disk(cx, cy, rad), amount, highlight)

    # Camera RGB per unit light: patch x channel under each light; neutral (R = 1) for speculars.
    cam_a = cam_under(refl, lights[amb_left], cam)
    cam_f = cam_under(refl, lights[amb_right], cam)
    cam_led = cam_under(refl, lights[flash_name], cam)
    white_a = lights[amb_left] @ cam
    white_f = lights[amb_right] @ cam
    white_led = lights[flash_name] @ cam
    def ambient(flicker):
        a = level[..., None] * ((1 - fluor)[..., None] * cam_a[idx] + flicker * fluor[..., None] * cam_f[idx])
        return a + highlight[..., None] * ((1 - fluor)[..., None] * white_a + flicker * fluor[..., None] * white_f)
    amb = ambient(1.0)
    # The fluorescent light flickers at 100 Hz: a 1/60 s exposure catches FLICKER times its mean
    # (1/30 s: the mean), which the exposure metadata cannot know. Tungsten does not flicker.
    amb_in_flash = ambient(FLICKER)
    fl = flash[..., None] * cam_led[idx] + specular[..., None] * white_led

    # Luminance of each part as it reaches the flash frame (ratio truth).
    y_a = level * ((1 - fluor) * xyz_under(refl, lights[amb_left], cmfs)[idx, 1] + fluor * xyz_under(refl, lights[amb_right], cmfs)[idx, 1])
    y_f = flash * xyz_under(refl, lights[flash_name], cmfs)[idx, 1]
    amb_scale_in_flash = (spec["flash_iso"] * spec["flash_time"]) / (spec["amb_iso"] * spec["amb_time"])
    ratio = y_f / np.maximum(y_a * amb_scale_in_flash, 1e-12)

    rng = np.random.default_rng(spec["seed"])
    frames = {}
    # `exposure`: camera value (fraction of white - black) per unit of light in the ambient frame;
    # the flash frame gets k = (ISO x time) / the ambient frame's of the ambient light, and the
    # flash (whose energy does not depend on the shutter time) at `exposure` per unit.
    k = amb_scale_in_flash
    for which in ["ambient", "flash"]:
        iso = spec["amb_iso" if which == "ambient" else "flash_iso"]
        signal = amb * spec["exposure"] if which == "ambient" else (amb_in_flash * k + fl) * spec["exposure"]
        if which == "flash" and spec.get("shift"):
            # Camera shake: the scene moves on the sensor, the CFA stays.
            dx, dy = spec["shift"]
            signal = np.roll(signal, (dy, dx), axis=(0, 1))
        mosaic = np.empty((HEIGHT, WIDTH))
        mosaic[0::2, 0::2] = signal[0::2, 0::2, 0]
        mosaic[0::2, 1::2] = signal[0::2, 1::2, 1]
        mosaic[1::2, 0::2] = signal[1::2, 0::2, 1]
        mosaic[1::2, 1::2] = signal[1::2, 1::2, 2]
        full_well = FULL_WELL_ISO100 * 100.0 / iso
        electrons = rng.poisson(np.clip(mosaic, 0, None) * full_well)
        dn = electrons / full_well * (WHITE - BLACK) + BLACK + rng.normal(0, READ_NOISE_DN, mosaic.shape)
        raw = np.clip(np.rint(dn), 0, WHITE).astype(np.uint16)
        clipped = raw >= WHITE
        s = 1.0 / full_well
        o = (READ_NOISE_DN / (WHITE - BLACK)) ** 2
        frames[which] = (raw, clipped, [s, o] * 3)

    # Clipped in either frame, in the ambient frame's geometry, dilated by 1 px.
    flash_clip = frames["flash"][1]
    if spec.get("shift"):
        flash_clip = np.roll(flash_clip, (-spec["shift"][1], -spec["shift"][0]), axis=(0, 1))
    clip = frames["ambient"][1] | flash_clip
    dil = clip.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            dil |= np.roll(clip, (dy, dx), axis=(0, 1))
    mask = (shadow * 1 | (specular > 0) * 2 | dil * 4 | (highlight > 0) * 8).astype(np.uint8)

    # Profiles.
    cm_a = color_matrix(train, lights["A"], cam, cmfs)
    cm_d65 = color_matrix(train, lights["D65"], cam, cmfs)
    cm_led = color_matrix(train, lights[flash_name], cam, cmfs)
    fm_led = forward_matrix(train, lights[flash_name], cam, cmfs)
    led_xy = colour.XYZ_to_xy(lights[flash_name] @ cmfs)
    mid_white = 0.5 * (white_a + white_f)
    truth = {
        "width": WIDTH, "height": HEIGHT, "patch": PATCH, "gap": GAP,
        "patch_xyz_d65": xyz_under(refl, lights["D65"], cmfs)[:24].tolist(),
        "gap_xyz_d65": xyz_under(refl, lights["D65"], cmfs)[24].tolist(),
        "flash_xy": [float(led_xy[0]), float(led_xy[1])],
        "ambient_exposure_ratio_in_flash_frame": amb_scale_in_flash,
        "spec": spec,
        "camera": "Nikon 5100 (NPL) spectral sensitivities, colour-science " + colour.__version__,
        "chart": spec.get("chart", "colorchecker"),
        "training_reflectances": int(len(train)),
    }
    return frames, cm_a, cm_d65, (cm_led, fm_led), led_xy, mid_white, white_led, lab, ratio.astype("<f4"), mask, truth


def srational(values, den=10000):
    out = []
    for v in values:
        out += [int(round(v * den)), den]
    return out


def write_dng(path, raw, noise, exif, profile, neutral):
    tags = [
        (33421, 3, 2, (2, 2), True),                      # CFARepeatPatternDim
        (33422, 1, 4, (0, 1, 1, 2), True),                # CFAPattern RGGB
        (50706, 1, 4, (1, 6, 0, 0), True),                # DNGVersion 1.6
        (50707, 1, 4, (1, 4, 0, 0), True),                # DNGBackwardVersion
        (50708, 2, 0, "Synthetic Nikon D5100 (NPL sensitivities)", True),  # UniqueCameraModel
        (50714, 3, 1, (BLACK,), True),                    # BlackLevel
        (50717, 3, 1, (WHITE,), True),                    # WhiteLevel
        (50728, 5, 3, tuple(x for v in neutral for x in (int(round(v * 1000000)), 1000000)), True),  # AsShotNeutral
        (50730, 10, 1, (0, 1), True),                     # BaselineExposure
        (51041, 12, 6, tuple(noise), True),               # NoiseProfile
        (33434, 5, 1, (1, exif["time_den"]), True),       # ExposureTime
        (33437, 5, 1, (int(exif["fnumber"] * 10), 10), True),  # FNumber
        (34855, 3, 1, (exif["iso"],), True),              # ISOSpeedRatings
        (271, 2, 0, "Darkroom synthetic", True),          # Make
        (272, 2, 0, "constant-colour pair", True),        # Model
    ]
    for i, (code, matrix, data) in enumerate(profile):
        n = i + 1
        if isinstance(matrix, tuple):
            matrix, forward = matrix
            tags.append(({1: 50964, 2: 50965}[n], 10, 9, tuple(srational(forward.flatten())), True))  # ForwardMatrixN
        tags.append(({1: 50721, 2: 50722}[n], 10, 9, tuple(srational(matrix.flatten())), True))  # ColorMatrixN
        tags.append(({1: 50778, 2: 50779}[n], 3, 1, (code,), True))  # CalibrationIlluminantN
        if data is not None:
            # IlluminantDataN (DNG 1.6): SHORT kind 0 (x-y), then x and y as RATIONALs, file byte order.
            den = 1000000
            blob = np.array([0], "<u2").tobytes() + np.array(
                [int(round(data[0] * den)), den, int(round(data[1] * den)), den], "<u4").tobytes()
            tags.append(({1: 52533, 2: 52534}[n], 7, len(blob), blob, True))
    tifffile.imwrite(path, raw, photometric=32803, planarconfig=1, extratags=tags, subfiletype=0,
                     byteorder="<", metadata=None, software=False)


def write_dcp(path, name, matrix, forward, xy):
    """A DNG camera profile file (.dcp: TIFF structure, magic "IIRC", little-endian) holding the
    flash profile: ProfileName, CalibrationIlluminant1 255 + IlluminantData1, ColorMatrix1,
    ForwardMatrix1. Written with struct here, independently of Darkroom."""
    import struct
    den = 1000000
    illum = struct.pack("<H4I", 0, int(round(xy[0] * den)), den, int(round(xy[1] * den)), den)
    def srat(m):
        return b"".join(struct.pack("<ii", int(round(v * 10000)), 10000) for v in m.flatten())
    name_b = name.encode() + b"\0"
    model = b"Synthetic Nikon D5100 (NPL sensitivities)\0"
    # (tag, type, count, payload bytes)
    entries = sorted([
        (50708, 2, len(model), model),          # UniqueCameraModel
        (50721, 10, 9, srat(matrix)),           # ColorMatrix1
        (50778, 3, 1, struct.pack("<H", 255)),  # CalibrationIlluminant1 = Other
        (50936, 2, len(name_b), name_b),        # ProfileName
        (50964, 10, 9, srat(forward)),          # ForwardMatrix1
        (52533, 7, len(illum), illum),          # IlluminantData1
    ])
    ifd_size = 2 + 12 * len(entries) + 4
    data_off = 8 + ifd_size
    head, blob = b"", b""
    for tag, typ, count, payload in entries:
        if len(payload) <= 4:
            head += struct.pack("<HHI", tag, typ, count) + payload.ljust(4, b"\0")
        else:
            head += struct.pack("<HHII", tag, typ, count, data_off + len(blob))
            blob += payload + (b"\0" if len(payload) % 2 else b"")
    out = b"IIRC" + struct.pack("<I", 8) + struct.pack("<H", len(entries)) + head + struct.pack("<I", 0) + blob
    with open(path, "wb") as f:
        f.write(out)


SPECS = {
    # The main pair: flash/ambient from ~0.4 at the corners to ~6 at the centre, a flash shadow,
    # flash speculars (the second clips) and a clipped ambient highlight.
    "mixed": dict(seed=17, flash=1.5, r0=30.0, exposure=0.45, shadow=[122, 134],
                  speculars=[[60, 40, 3, 1.2], [40, 96, 3, 12.0]], highlights=[[170, 20, 3, 3.0]],
                  amb_iso=400, amb_time=1 / 30, flash_iso=200, flash_time=1 / 60, fnumber=2.0),
    # The same pair with the flash frame 3 px to the right (camera shake between the frames).
    "shifted": dict(seed=18, flash=1.5, r0=30.0, exposure=0.45, shadow=[122, 134],
                    speculars=[[60, 40, 3, 1.2], [40, 96, 3, 12.0]], highlights=[[170, 20, 3, 3.0]],
                    amb_iso=400, amb_time=1 / 30, flash_iso=200, flash_time=1 / 60, fnumber=2.0, shift=[3, 0]),
    # A flash barely visible: flash/ambient ~0.03 at the centre.
    "weak": dict(seed=19, flash=0.0075, r0=30.0, exposure=0.45,
                 amb_iso=400, amb_time=1 / 30, flash_iso=200, flash_time=1 / 60, fnumber=2.0),
    # Validation pairs: no test or parameter choice was made on them; they only report (and
    # guard) what the method does on another chart (PMC), other lights (a warm white LED fading
    # into tri-band fluorescent CIE FL11, a 6500 K LED-B5 flash off the centre), other shadows
    # and noise seeds.
    "other": dict(seed=117, chart="pmc", ambient=["LED-B1", "FL11"], flash_light="LED-B5", flash=1.2, r0=36.0,
                  flash_centre=[110, 58], exposure=0.4, shadow=[40, 50], speculars=[[150, 90, 3, 1.5]],
                  highlights=[[20, 110, 3, 3.0]], mix_width=20.0,
                  amb_iso=400, amb_time=1 / 30, flash_iso=200, flash_time=1 / 60, fnumber=2.0),
    "other-dim": dict(seed=118, chart="pmc", ambient=["LED-B1", "FL11"], flash_light="LED-B5", flash=0.4, r0=36.0,
                      flash_centre=[80, 70], exposure=0.4, shadow=[150, 158], mix_width=20.0,
                      amb_iso=400, amb_time=1 / 30, flash_iso=200, flash_time=1 / 60, fnumber=2.0),
    # Added after the first validation result, to give the validation set the main set's make-up
    # (a normal, a shaken and a weak pair): `other` shaken by (-2, 3) px and a barely visible flash.
    "other-shifted": dict(seed=119, chart="pmc", ambient=["LED-B1", "FL11"], flash_light="LED-B5", flash=1.2, r0=36.0,
                          flash_centre=[110, 58], exposure=0.4, shadow=[40, 50], speculars=[[150, 90, 3, 1.5]],
                          highlights=[[20, 110, 3, 3.0]], mix_width=20.0, shift=[-2, 3],
                          amb_iso=400, amb_time=1 / 30, flash_iso=200, flash_time=1 / 60, fnumber=2.0),
    "other-weak": dict(seed=120, chart="pmc", ambient=["LED-B1", "FL11"], flash_light="LED-B5", flash=0.01, r0=36.0,
                       flash_centre=[110, 58], exposure=0.4, mix_width=20.0,
                       amb_iso=400, amb_time=1 / 30, flash_iso=200, flash_time=1 / 60, fnumber=2.0),
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: constant_colour_pairs.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, spec in SPECS.items():
        frames, cm_a, cm_d65, cm_led, led_xy, mid_white, white_led, lab, ratio, mask, truth = render(spec)
        amb_neutral = mid_white / mid_white.max()
        led_neutral = white_led / white_led.max()
        write_dng(os.path.join(out, f"{name}-ambient.dng"), frames["ambient"][0], frames["ambient"][2],
                  dict(time_den=round(1 / spec["amb_time"]), fnumber=spec["fnumber"], iso=spec["amb_iso"]),
                  [(17, cm_a, None), (21, cm_d65, None)], amb_neutral)
        write_dng(os.path.join(out, f"{name}-flash.dng"), frames["flash"][0], frames["flash"][2],
                  dict(time_den=round(1 / spec["flash_time"]), fnumber=spec["fnumber"], iso=spec["flash_iso"]),
                  [(255, cm_led, led_xy)], led_neutral)
        if name == "mixed":
            led = colour.SDS_ILLUMINANTS["LED-B4"].copy().align(SHAPE)
            with open(os.path.join(out, "led-b4.csv"), "w") as f:
                f.write("wavelength_nm,relative_power\n")
                for nm, v in zip(led.wavelengths, led.values):
                    f.write(f"{nm:g},{v:.6g}\n")
            write_dcp(os.path.join(out, "flash.dcp"), "LED-B4 flash", cm_led[0], cm_led[1], led_xy)
        lab.tofile(os.path.join(out, f"{name}.labels.u8"))
        ratio.tofile(os.path.join(out, f"{name}.ratio.f32"))
        mask.tofile(os.path.join(out, f"{name}.mask.u8"))
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(truth, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{name}: flash/ambient {float(ratio.min()):.3f}..{float(ratio.max()):.3f}, "
              f"clipped px {int((mask & 4).astype(bool).sum())}")


if __name__ == "__main__":
    main()
