// shardplan-test-bundle ROOT NAME VERSION [SEED]: writes WriteTinyBundle's bundle, so that tests
// in other languages (CLI, Python) can put model bundles into a server's models directory.
#include <cstdlib>
#include <iostream>
#include <string>

#include "tests/integration/support/test_bundles.h"

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::cerr << "usage: " << argv[0] << " ROOT NAME VERSION [SEED]\n";
    return 2;
  }
  const unsigned seed = argc == 5 ? static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10)) : 1;
  const absl::Status written =
      shardplan::testing_bundles::WriteTinyBundle(argv[1], argv[2], argv[3], seed);
  if (!written.ok()) {
    std::cerr << written << "\n";
    return 1;
  }
  return 0;
}
