# SPDX-License-Identifier: GPL-2.0-or-later
"""Renders test images of a chart for tests/cli/test-profile-build-chart.py: a .cht layout
and its reference values passed through a known device (a real RGB input profile used as
the truth, looked up backwards with ArgyllCMS's xicclu), placed on a background with a
rotation, scale, keystone, blur, vignetting and noise, written as TIFF (8/16-bit, optional
embedded ICC profile) or PNG (8/16-bit) by the small writers below (PIL writes no 16-bit
RGB). numpy is Debian's python3-numpy."""

import math
import re
import struct
import subprocess
import zlib

import numpy as np


def read_cgats(path):
    """The first table of a CGATS file: (fields, rows of strings)."""
    fields, rows, state = [], [], None
    for line in open(path, encoding="latin-1"):
        toks = re.findall(r'"[^"]*"|\S+', line.split("#")[0])
        if not toks:
            continue
        if toks[0] == "BEGIN_DATA_FORMAT":
            state = "fmt"
        elif toks[0] == "END_DATA_FORMAT":
            state = None
        elif toks[0] == "BEGIN_DATA":
            state = "data"
        elif toks[0] == "END_DATA":
            break
        elif state == "fmt":
            fields += toks
        elif state == "data":
            rows.append([t.strip('"') for t in toks])
    return fields, rows


def lab_to_xyz(lab):
    d50 = (0.9642, 1.0, 0.8249)
    fy = (lab[0] + 16) / 116
    f = (fy + lab[1] / 500, fy, fy - lab[2] / 200)
    return [d50[k] * (f[k] ** 3 if f[k] > 6 / 29 else 3 * (6 / 29) ** 2 * (f[k] - 4 / 29)) for k in range(3)]


def xyz_to_lab(xyz):
    d50 = (0.9642, 1.0, 0.8249)
    f = [(v / w) ** (1 / 3) if v / w > 216 / 24389 else (24389 / 27 * v / w + 16) / 116 for v, w in zip(xyz, d50)]
    return [116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])]


def read_reference(path):
    """name -> D50 Lab, in file order (SAMPLE_LOC if the file has it, else SAMPLE_ID)."""
    fields, rows = read_cgats(path)
    name = fields.index("SAMPLE_LOC") if "SAMPLE_LOC" in fields else fields.index("SAMPLE_ID")
    out = {}
    for r in rows:
        if "LAB_L" in fields:
            lab = [float(r[fields.index(f)]) for f in ("LAB_L", "LAB_A", "LAB_B")]
        else:
            lab = xyz_to_lab([float(r[fields.index(f)]) / 100 for f in ("XYZ_X", "XYZ_Y", "XYZ_Z")])
        out[r[name]] = lab
    return out


def _label_range(a, b):
    if a == "_":
        return [""]
    out, cur = [], a
    while True:
        out.append(cur)
        if cur == b:
            return out
        s = list(cur)
        i = len(s) - 1
        while i >= 0:
            if s[i] == "9":
                s[i] = "0"
            elif s[i] == "Z":
                s[i] = "A"
            else:
                s[i] = chr(ord(s[i]) + 1)
                break
            i -= 1
        if i < 0:
            s.insert(0, "1" if s[0].isdigit() else "A")
        cur = "".join(s)


def read_cht(path):
    """(patches [(name, x, y, w, h)], outline corners [(x, y)] * 4, shrink)."""
    lines = [l.split() for l in open(path, encoding="latin-1")]
    patches, corners, shrink = [], None, 0.0
    i = 0
    while i < len(lines):
        t = lines[i]
        if t and t[0] == "BOXES":
            while i + 1 < len(lines) and lines[i + 1] and lines[i + 1][0] in ("F", "D", "X", "Y"):
                i += 1
                b = lines[i]
                if b[0] == "F":
                    v = [float(x) for x in b[3:11]]
                    corners = [(v[0], v[1]), (v[2], v[3]), (v[4], v[5]), (v[6], v[7])]
                elif b[0] in "XY":
                    w, h, x0, y0, xi, yi = [float(x) for x in b[5:11]]
                    xs, ys = _label_range(b[1], b[2]), _label_range(b[3], b[4])
                    for j, yl in enumerate(ys):
                        for n, xl in enumerate(xs):
                            name = xl + yl if b[0] == "X" else yl + xl
                            patches.append((name, x0 + n * xi, y0 + j * yi, w, h))
        elif t and t[0] == "BOX_SHRINK":
            shrink = float(t[1])
        i += 1
    if corners is None:
        x0 = min(p[1] for p in patches)
        y0 = min(p[2] for p in patches)
        x1 = max(p[1] + p[3] for p in patches)
        y1 = max(p[2] + p[4] for p in patches)
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    return patches, corners, shrink


def norm_name(s):
    return re.sub(r"\d+", lambda m: str(int(m.group(0))), s.upper())


def xicclu(args, values):
    """Values (lists of 3) through ArgyllCMS's xicclu; returns lists of 3."""
    text = "".join("%.6f %.6f %.6f\n" % tuple(v) for v in values)
    out = subprocess.run(["xicclu"] + args, input=text, capture_output=True, text=True, check=True).stdout
    res = []
    for line in out.splitlines():
        if "->" in line:
            nums = re.findall(r"-?\d+\.\d+", line.split("->")[-1])
            res.append([float(x) for x in nums[:3]])
    assert len(res) == len(values), out
    return res


def device_values(truth, labs):
    """Device RGB (0..1) that the truth profile maps to these Lab (its inverse, clipped)."""
    return [[min(max(c, 0.0), 1.0) for c in v] for v in xicclu(["-fif", "-ir", "-pl", truth], labs)]


def homography(src, dst):
    a, b = [], []
    for (u, v), (x, y) in zip(src, dst):
        a.append([u, v, 1, 0, 0, 0, -u * x, -v * x]); b.append(x)
        a.append([0, 0, 0, u, v, 1, -u * y, -v * y]); b.append(y)
    h = np.linalg.solve(np.array(a), np.array(b))
    return np.append(h, 1.0).reshape(3, 3)


def placement(corners, width, height, scale, angle, keystone, centre=(0.5, 0.5)):
    """Image corners of the chart: `scale` of the image width, turned by `angle` degrees,
    its top edge `keystone` shorter than its bottom edge (a camera tilted up)."""
    xs = [c[0] for c in corners]
    ys = [c[1] for c in corners]
    cw, ch = max(xs) - min(xs), max(ys) - min(ys)
    k = scale * width / cw
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    out = []
    for (u, v) in corners:
        x, y = (u - cx) * k, (v - cy) * k
        x *= 1 - keystone * (0.5 - (v - min(ys)) / ch)
        a = math.radians(angle)
        out.append((centre[0] * width + x * math.cos(a) - y * math.sin(a),
                    centre[1] * height + x * math.sin(a) + y * math.cos(a)))
    return out


def render(cht, colours, width, height, img_corners, background=(0.35, 0.33, 0.30), base=(0.03, 0.03, 0.03),
           blur=0.8, vignetting=0.03, noise=0.003, seed=1, supersample=2, gain=1.0):
    """Float RGB image (height, width, 3) in 0..1: patch i of the layout in colours[name];
    `gain` is the exposure, applied before the sensor clips at 1."""
    patches, corners, _ = cht
    rng = np.random.default_rng(seed)
    s = supersample
    h = homography([(x * s, y * s) for x, y in img_corners], corners)  # image → chart
    # the chart's base spans its outline and every patch (it8.cht's grey scale lies below
    # its fiducial outline)
    xs = [c[0] for c in corners] + [p[1] for p in patches] + [p[1] + p[3] for p in patches]
    ys = [c[1] for c in corners] + [p[2] for p in patches] + [p[2] + p[4] for p in patches]
    # a raster of the layout: 0 outside the chart, 1 its base, 2 + i patch i
    cell = min(min(p[3], p[4]) for p in patches) / 20
    u0, v0 = min(xs), min(ys)
    nu, nv = int((max(xs) - u0) / cell) + 1, int((max(ys) - v0) / cell) + 1
    raster = np.ones((nv, nu), dtype=np.int32)
    table = np.array([background, base] + [colours[norm_name(p[0])] for p in patches], dtype=np.float64)
    for i, (name, x, y, w, hh) in enumerate(patches):
        raster[max(int(round((y - v0) / cell)), 0):int(round((y + hh - v0) / cell)),
               max(int(round((x - u0) / cell)), 0):int(round((x + w - u0) / cell))] = 2 + i

    def rows(r0, r1):
        """Output rows r0..r1 - 1, averaged from their supersamples."""
        yy, xx = np.mgrid[r0 * s:r1 * s, 0:width * s].astype(np.float64) + 0.5
        d = h[2, 0] * xx + h[2, 1] * yy + h[2, 2]
        u = (h[0, 0] * xx + h[0, 1] * yy + h[0, 2]) / d
        v = (h[1, 0] * xx + h[1, 1] * yy + h[1, 2]) / d
        iu, iv = np.floor((u - u0) / cell).astype(np.int64), np.floor((v - v0) / cell).astype(np.int64)
        inside = (iu >= 0) & (iu < nu) & (iv >= 0) & (iv < nv)
        label = np.zeros(u.shape, dtype=np.int32)
        label[inside] = raster[iv[inside], iu[inside]]
        img = table[label]
        # the background gets a gentle gradient so that it is not a flat patch itself
        outside = label == 0
        img[outside] = table[0] * (0.8 + 0.4 * xx[outside] / (width * s))[:, None]
        return img.reshape(r1 - r0, s, width, s, 3).mean(axis=(1, 3))
    # in bands of rows: the same pixels, without a supersampled copy of the whole image (whose
    # fresh pages were most of a render's time)
    img = np.concatenate([rows(r0, min(r0 + 32, height)) for r0 in range(0, height, 32)])
    if blur > 0:
        r = int(math.ceil(3 * blur))
        k = np.exp(-0.5 * (np.arange(-r, r + 1) / blur) ** 2)
        k /= k.sum()
        pad = np.pad(img, ((r, r), (r, r), (0, 0)), mode="edge")
        tmp = sum(k[i] * pad[:, i:i + width, :] for i in range(2 * r + 1))
        img = sum(k[i] * tmp[i:i + height, :, :] for i in range(2 * r + 1))
    yy, xx = np.mgrid[0:height, 0:width]
    rr = ((xx - width / 2) ** 2 + (yy - height / 2) ** 2) / ((width / 2) ** 2 + (height / 2) ** 2)
    img = img * (1 - vignetting * rr)[..., None] * gain
    img = img + rng.normal(0, noise, img.shape)
    return np.clip(img, 0, 1)


def write_tiff(path, img, bits=16, icc=None, claim=None):
    """A baseline uncompressed RGB TIFF (TIFF 6.0), little-endian. claim: (width, height) the
    header states instead of the image's, a file cut short after the image's pixels (a huge
    image's header, without a huge image in memory)."""
    height, width, _ = claim[::-1] + (3,) if claim else img.shape
    if bits == 16:
        data = np.round(img * 65535).astype("<u2").tobytes()
    else:
        data = np.round(img * 255).astype("u1").tobytes()
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 3, None), (259, 3, 1, 1), (262, 3, 1, 2),
               (273, 4, 1, None), (277, 3, 1, 3), (278, 4, 1, height),
               (279, 4, 1, width * height * 3 * bits // 8)]
    if icc:
        entries.append((34675, 7, len(icc), None))
    n = len(entries)
    ifd_off = 8
    extra_off = ifd_off + 2 + 12 * n + 4
    bps = struct.pack("<3H", bits, bits, bits)
    icc_off = extra_off + len(bps)
    data_off = icc_off + (len(icc) if icc else 0)
    out = bytearray(b"II*\0" + struct.pack("<I", ifd_off) + struct.pack("<H", n))
    for tag, typ, count, val in entries:
        if tag == 258:
            val = extra_off
        elif tag == 273:
            val = data_off
        elif tag == 34675:
            val = icc_off
        if typ == 3 and count == 1:
            out += struct.pack("<HHIHH", tag, typ, count, val, 0)
        else:
            out += struct.pack("<HHII", tag, typ, count, val)
    out += struct.pack("<I", 0) + bps + (icc or b"") + data
    open(path, "wb").write(out)


def write_png(path, img, bits=8, srgb=False):
    height, width, _ = img.shape
    if bits == 16:
        raw = np.round(img * 65535).astype(">u2")
    else:
        raw = np.round(img * 255).astype("u1")
    rows = b"".join(b"\0" + raw[y].tobytes() for y in range(height))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, 2, 0, 0, 0))
    if srgb:
        out += chunk(b"sRGB", b"\0")
    out += chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b"")
    open(path, "wb").write(out)
