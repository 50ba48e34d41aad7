/* EDID parser: implementation lands here (see edid.h). */
