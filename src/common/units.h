/* units.h - parsing and printing of durations, sizes and rates as users write them.
 *   durations: "300s" "5m" "250ms" "1.5h" "100us" "10" (bare number = seconds)
 *   sizes (binary, bytes): "64K" "1M" "1G" "250" "64KiB" "1.5k"  (K = 1024; whole bytes only)
 *   rates (decimal, bits/s): "900M" "1.5G" "10Gbit" "100k" "1e9"   (M = 10^6, as iperf3 -b)
 * All parsers reject trailing garbage, negatives, NaN/inf and overflow. */
#ifndef NS_UNITS_H
#define NS_UNITS_H

#include <stddef.h>
#include <stdint.h>

struct err;

/* Parse a duration into seconds (>= 0). Returns 0 or NS_EPARSE/NS_ERANGE. */
int units_parse_duration(const char *s, double *out_seconds, struct err *e);

/* Parse a byte size (binary multipliers). Returns 0 or NS_EPARSE/NS_ERANGE. */
int units_parse_size(const char *s, uint64_t *out_bytes, struct err *e);

/* Parse a bit rate in bits per second (decimal multipliers). Returns 0 or NS_EPARSE/NS_ERANGE. */
int units_parse_rate(const char *s, uint64_t *out_bps, struct err *e);

/* "12.10 Gbit/s", "941.4 Mbit/s" - 4 significant digits, decimal prefixes. Returns buf. */
char *units_format_rate(double bps, char *buf, size_t len);

/* "329.3 us", "4.08 ms", "1.20 s" from microseconds. Returns buf. */
char *units_format_usec(double usec, char *buf, size_t len);

/* "64 KiB", "1.5 GiB". Returns buf. */
char *units_format_bytes(double bytes, char *buf, size_t len);

#endif
