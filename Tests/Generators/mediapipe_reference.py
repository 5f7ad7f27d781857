#!/usr/bin/env python3
"""Reference outputs of MediaPipe 0.10.21 itself for Darkroom's semantic-matte tests.

Runs MediaPipe's Python solutions on the 24 Kodak images and writes small fixtures that the
Swift tests compare Darkroom's own pipeline (TFLite models run through XNNPACK, pre- and
post-processing in Sources/DarkroomNeural/Mattes) against:

  kodimNN_person.png   selfie segmentation (general model, model_selection=0): the person
                       probability at the model's resolution, 256 x 256, 8-bit (round(p * 255)).
                       MediaPipe returns the mask resized to the image (bilinear); it is
                       sampled back at the model's 256 x 256 pixel centres (cv2 INTER_LINEAR;
                       for 768 -> 256 that lands exactly on image pixels 3i + 1).
  detections.json      face detection (short-range BlazeFace, min score 0.5) per image: score,
                       relative box (xmin, ymin, width, height) and the 6 relative keypoints
                       (right eye, left eye, nose tip, mouth centre, right ear, left ear).
  landmarks/kodimNN.json
                       face mesh (static images, refine_landmarks=True: 478 points, up to 4
                       faces, min detection confidence 0.5): per face the normalised x, y, z.

Usage: mediapipe_reference.py SAMPLES_DIR OUT_DIR   (make mediapipe-reference)
Needs mediapipe==0.10.21 and the packages pinned in mediapipe_requirements.txt; never run at
Darkroom's run time or test time: the fixtures are committed.
"""
import json
import os
import sys

import cv2
import numpy as np
import mediapipe as mp
from mediapipe.python.solutions import face_detection as mp_fd
from mediapipe.python.solutions import face_mesh as mp_fm
from mediapipe.python.solutions import selfie_segmentation as mp_ss

MODEL_SIZE = 256


def r(v, n=5):
    return round(float(v), n)


def main():
    samples, out = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out, "landmarks"), exist_ok=True)
    names = sorted(f[:-4] for f in os.listdir(samples) if f.startswith("kodim") and f.endswith(".png"))
    detections = {}
    summary = {}
    with mp_ss.SelfieSegmentation(model_selection=0) as seg, \
            mp_fd.FaceDetection(model_selection=0, min_detection_confidence=0.5) as fd, \
            mp_fm.FaceMesh(static_image_mode=True, max_num_faces=4, refine_landmarks=True,
                           min_detection_confidence=0.5) as fm:
        for name in names:
            bgr = cv2.imread(os.path.join(samples, name + ".png"), cv2.IMREAD_COLOR)
            rgb = np.ascontiguousarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
            h, w = rgb.shape[:2]

            mask = seg.process(rgb).segmentation_mask  # float32, h x w, 0...1
            small = cv2.resize(mask, (MODEL_SIZE, MODEL_SIZE), interpolation=cv2.INTER_LINEAR)
            u8 = np.clip(np.rint(small * 255.0), 0, 255).astype(np.uint8)
            cv2.imwrite(os.path.join(out, name + "_person.png"), u8)

            faces = []
            res = fd.process(rgb)
            for d in res.detections or []:
                box = d.location_data.relative_bounding_box
                faces.append({
                    "score": r(d.score[0], 4),
                    "box": [r(box.xmin), r(box.ymin), r(box.width), r(box.height)],
                    "keypoints": [[r(k.x), r(k.y)] for k in d.location_data.relative_keypoints],
                })
            detections[name] = {"width": w, "height": h, "faces": faces}

            mesh = fm.process(rgb)
            landmark_faces = []
            for f in mesh.multi_face_landmarks or []:
                landmark_faces.append([[r(p.x), r(p.y), r(p.z)] for p in f.landmark])
            with open(os.path.join(out, "landmarks", name + ".json"), "w") as fh:
                json.dump({"width": w, "height": h, "faces": landmark_faces}, fh, separators=(",", ":"))
                fh.write("\n")
            summary[name] = (len(faces), len(landmark_faces), float((u8 >= 128).mean()))

    with open(os.path.join(out, "detections.json"), "w") as fh:
        json.dump({"mediapipe": mp.__version__, "images": detections}, fh, indent=1, sort_keys=True)
        fh.write("\n")
    for name, (nd, nm, person) in summary.items():
        print(f"{name}: faces {nd}, meshes {nm}, person {person:.3f}")


if __name__ == "__main__":
    main()
