/*
 * The paper reproductions' CSV output (see repro-csv.h): one copy of
 * opening a file and failing the same way in every reproduction.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "repro-csv.h"

void repro_mkdir(const char *dir)
{
    if (g_mkdir_with_parents(dir, 0755)) {
        fprintf(stderr, "%s: %s: %s\n", g_get_prgname(), dir,
                strerror(errno));
        exit(1);
    }
}

FILE *repro_csv(const char *dir, const char *name, const char *head)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    FILE *f = fopen(path, "w");

    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", g_get_prgname(), path,
                strerror(errno));
        exit(1);
    }
    fprintf(f, "%s\n", head);
    return f;
}
