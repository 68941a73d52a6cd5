/*
 * DCTCP incast in the simulator, for scripts/repro/dctcp.sh (not a test:
 * it only reports; virtual time, the same on every machine).
 *
 *   dctcp-repro MS SAMPLE_US K_BYTES [srnic]
 *     tests/unit/dctcp-incast.h's scenario for MS milliseconds (srnic:
 *     SNIC_TRANSPORT_SRNIC_DCTCP, SRNIC's selective repeat under DCTCP's
 *     window, instead of DCTCP over go-back-N), K the
 *     marking threshold: every SAMPLE_US a CSV row on stdout (each flow's
 *     Gb/s into the switch over the last interval, the bottleneck queue
 *     in KB); then on stderr one summary line of CSV (header first) over
 *     the steady state, the run's second half.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "dctcp-incast.h"
#include "snic/snic_admin.h"

int main(int argc, char **argv)
{
    DctcpIncastConfig cfg = { .csv = stdout };
    DctcpIncastResult r;
    unsigned i;

    if (argc < 4 || argc > 5 || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0 ||
        atoi(argv[3]) <= 1 || (argc == 5 && strcmp(argv[4], "srnic"))) {
        fprintf(stderr, "usage: dctcp-repro MS SAMPLE_US K_BYTES [srnic]\n");
        return 2;
    }
    cfg.program = argc == 5 ? SNIC_TRANSPORT_SRNIC_DCTCP : 0;
    cfg.run_ns = atoi(argv[1]) * 1000000ull;
    cfg.steady_ns = cfg.run_ns / 2;
    cfg.sample_ns = atoi(argv[2]) * 1000ull;
    cfg.k_bytes = atoi(argv[3]);
    if (!dctcp_incast_run(&cfg, &r)) {
        return 1;
    }
    fprintf(stderr, "steady_from_us,steady_to_us,sum_gbps,jain,min_gbps,"
            "max_gbps,q_avg_kb,q_max_steady_kb,q_max_kb,k_kb,marked,"
            "dropped,writes\n");
    {
        double lo = r.gbps[0], hi = r.gbps[0];

        for (i = 1; i < DCTCP_FLOWS; i++) {
            lo = MIN(lo, r.gbps[i]);
            hi = MAX(hi, r.gbps[i]);
        }
        fprintf(stderr, "%.1f,%.1f,%.3f,%.4f,%.3f,%.3f,%.3f,%.3f,%.3f,"
                "%.3f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
                G_GUINT64_FORMAT "\n", cfg.steady_ns / 1000.0,
                cfg.run_ns / 1000.0, r.sum_gbps, r.jain, lo, hi,
                r.q_avg_steady / 1000, r.q_max_steady / 1000.0,
                r.q_max / 1000.0, cfg.k_bytes / 1000.0, r.marked,
                r.dropped, r.writes);
    }
    return 0;
}
