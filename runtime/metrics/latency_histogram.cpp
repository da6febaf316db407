#include "runtime/metrics/latency_histogram.hpp"

#include <bit>
#include <cmath>

namespace weir::runtime::metrics {

namespace {

size_t bucket_of(uint64_t ns) {
  if (ns < (uint64_t{1} << LatencyHistogram::first_octave))
    return 0;
  int octave = std::bit_width(ns) - 1;
  if (octave >= LatencyHistogram::first_octave + LatencyHistogram::octaves)
    return LatencyHistogram::size - 1;
  // The two bits after the leading one say which quarter of the octave.
  auto quarter = static_cast<size_t>((ns >> (octave - 2)) & 3);
  return 1 + static_cast<size_t>(octave - LatencyHistogram::first_octave) * LatencyHistogram::per_octave + quarter;
}

/// The middle of bucket `i` in ns (the lower bound of the last, open, bucket).
double middle_of(size_t i) {
  if (i == 0)
    return std::ldexp(1.0, LatencyHistogram::first_octave) / 2;
  if (i == LatencyHistogram::size - 1)
    return std::ldexp(1.0, LatencyHistogram::first_octave + LatencyHistogram::octaves);
  auto octave = static_cast<int>((i - 1) / LatencyHistogram::per_octave) + LatencyHistogram::first_octave;
  auto quarter = static_cast<double>((i - 1) % LatencyHistogram::per_octave);
  return std::ldexp(1.0 + (quarter + 0.5) / LatencyHistogram::per_octave, octave);
}

} // namespace

void LatencyHistogram::record(uint64_t ns, uint64_t records) {
  if (counts.empty())
    counts.resize(size);
  counts[bucket_of(ns)] += records;
}

uint64_t LatencyHistogram::total() const {
  uint64_t n = 0;
  for (auto c : counts)
    n += c;
  return n;
}

double LatencyHistogram::quantile_seconds(double q) const {
  auto n = total();
  if (n == 0)
    return 0;
  // The smallest bucket with at least q of the records at or below it.
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(n)));
  uint64_t seen = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= rank && seen > 0)
      return middle_of(i) / 1e9;
  }
  return middle_of(counts.size() - 1) / 1e9;
}

LatencyHistogram LatencyHistogram::since(const LatencyHistogram& then) const {
  LatencyHistogram out;
  if (counts.empty())
    return out;
  out.counts = counts;
  if (then.counts.size() != counts.size())
    return out;
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i] < then.counts[i])
      return *this; // went back: a fresh histogram
  for (size_t i = 0; i < counts.size(); ++i)
    out.counts[i] -= then.counts[i];
  return out;
}

} // namespace weir::runtime::metrics
