// bandwidth_probe: how fast can the host feed the GPU?
//
//   bandwidth_probe [-d device] [-s size_in_MiB] [-r reps] [--csv]
#include <cstring>
#include <string>
#include <vector>

#include "bandwidth.h"

static void usage(const char *prog) {
  fprintf(stderr, "usage: %s [-d device] [-s MiB] [-r reps] [--csv]\n", prog);
}

int main(int argc, char **argv) {
  int device = 0, reps = 20;
  size_t mib = 32;
  bool csv = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-d" && i + 1 < argc) device = std::atoi(argv[++i]);
    else if (a == "-s" && i + 1 < argc) mib = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "-r" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--csv") csv = true;
    else {
      usage(argv[0]);
      return 2;
    }
  }
  if (mib == 0 || reps <= 0) {
    usage(argv[0]);
    return 2;
  }

  int count = 0;
  checkCuda(cudaGetDeviceCount(&count));
  if (device >= count) {
    fprintf(stderr, "device %d not present (%d devices)\n", device, count);
    return 1;
  }
  checkCuda(cudaSetDevice(device));
  checkCuda(cudaSetDeviceFlags(cudaDeviceMapHost));
  printDeviceSummary(device);

  const size_t bytes = mib << 20;
  std::vector<TransferResult> results;
  results.push_back(measureCopies(HostMemory::Pageable, bytes, reps));
  results.push_back(measureCopies(HostMemory::Pinned, bytes, reps));
  results.push_back(measureCopies(HostMemory::WriteCombined, bytes, reps));

  bool zcSupported = false;
  double zc = measureZeroCopy(bytes, reps, &zcSupported);

  if (csv) {
    printf("memory,h2d_gbps,d2h_gbps\n");
    for (const auto &r : results) printf("%s,%.3f,%.3f\n", r.label, r.h2d_gbps, r.d2h_gbps);
    if (zcSupported) printf("zero-copy,%.3f,\n", zc);
  } else {
    printf("\n%-16s %12s %12s\n", "memory", "H2D GB/s", "D2H GB/s");
    for (const auto &r : results) printf("%-16s %12.2f %12.2f\n", r.label, r.h2d_gbps, r.d2h_gbps);
    if (zcSupported) printf("%-16s %12.2f %12s\n", "zero-copy read", zc, "-");
    else printf("zero-copy: not supported on this device\n");
  }
  return 0;
}
