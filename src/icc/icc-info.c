/* ICC reader: implementation lands here (see icc-info.h). */
