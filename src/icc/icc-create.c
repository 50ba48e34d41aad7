/* EDID-to-ICC profile creation: implementation lands here. */
