/*
 * The paper reproductions' output (tests/bench/NAME-repro.c, run by
 * scripts/repro/NAME.sh): CSV files in one directory. Errors end the
 * program with exit status 1, its name (g_get_prgname) first.
 */
#ifndef SNIC_TESTS_REPRO_CSV_H
#define SNIC_TESTS_REPRO_CSV_H

#include <stdio.h>

/* mkdir -p dir */
void repro_mkdir(const char *dir);

/* dir/name opened for writing, its header line written */
FILE *repro_csv(const char *dir, const char *name, const char *head);

#endif
