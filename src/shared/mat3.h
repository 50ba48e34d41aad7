/* SPDX-License-Identifier: GPL-2.0-or-later */
/* 3×3 matrices, row-major double[9]: the colour code's one inverse (ICC chad, display models,
 * the profile fit). Pure arithmetic; no allocation. */
#pragma once

double mat3_det(const double m[9]);
/* r = m⁻¹; -EDOM when m is singular (|det| < 1e-12) or not finite, r then untouched. */
int mat3_invert(const double m[9], double r[9]);
