/* pprof profiles of the merged reports (pprof.c): what go tool pprof and the
 * continuous-profiling services read. Part of the pego command (pego report),
 * not of libpego; it needs protobuf-c and zlib. */
#ifndef PEGO_REP_PPROF_H
#define PEGO_REP_PPROF_H

#include <stddef.h>

#include "summary.h"

/* Writes the calling-context tree of s to path ("-": standard output) as a
 * gzip-compressed profile.proto message; 0, or -1 with a message in err. */
int rep_write_pprof(const rep_summary *s, const char *path, char *err, size_t errlen);

#endif
