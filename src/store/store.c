/* SQLite store: implementation lands here (see store.h). */
