#include "client/cli/access_figures_format.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/cli/output.h"
#include "client/cli/text_table.h"

namespace shardplan::cli {
namespace {

// Wider matrices do not fit 100 columns (11 a device): --json has them.
constexpr int kMaxDevicesInTextMatrix = 8;

std::string Figure(double value) { return absl::StrFormat("%.4g", value); }

std::string CommunicationMatrixText(const shardplan::v1::AccessFigures& figures) {
  const int devices = figures.devices_size();
  std::vector<std::string> headers = {"from \\ to"};
  std::vector<bool> right_align = {false};
  for (int j = 0; j < devices; ++j) {
    headers.push_back(absl::StrCat(j));
    right_align.push_back(true);
  }
  TextTable table(std::move(headers), std::move(right_align));
  for (int i = 0; i < devices; ++i) {
    std::vector<std::string> row = {absl::StrCat(i)};
    for (int j = 0; j < devices; ++j) {
      row.push_back(Figure(figures.communication_us(i * devices + j)));
    }
    table.AddRow(std::move(row));
  }
  return table.Render(0);
}

}  // namespace

std::string FormatAccessFiguresText(const shardplan::v1::AccessFigures& figures) {
  std::string text = absl::StrFormat(
      "OPER's figures (Eqs. 1-3), per iteration: communication %s us, %s MiB fetched\n"
      "degrees of balance (min / max): memory %.3f, lookups %.3f, communication %.3f\n",
      Figure(figures.total_communication_us()),
      Figure(figures.total_fetch_bytes() / (1024.0 * 1024)), figures.memory_balance(),
      figures.lookup_balance(), figures.communication_balance());
  TextTable devices(
      {"device", "memory GiB", "lookups", "lookup MiB", "fetch us", "fetch MiB", "served us"},
      {false, true, true, true, true, true, true});
  for (const shardplan::v1::AccessFigures::Device& device : figures.devices()) {
    devices.AddRow({absl::StrCat(device.device()), FormatGiB(device.memory_bytes(), 3),
                    Figure(device.lookups()), Figure(device.lookup_bytes() / (1024.0 * 1024)),
                    Figure(device.fetch_us()), Figure(device.fetch_bytes() / (1024.0 * 1024)),
                    Figure(device.serve_us())});
  }
  absl::StrAppend(&text, devices.Render());
  const int count = figures.devices_size();
  if (figures.communication_us_size() == count * count && count <= kMaxDevicesInTextMatrix) {
    absl::StrAppend(&text, "\ncommunication us (device i fetching from device j):\n",
                    CommunicationMatrixText(figures));
  } else if (count > 0) {
    absl::StrAppend(&text, "\n(the ", count, " x ", count,
                    figures.matrix_omitted() ? " matrix is not sent for this many devices)\n"
                                             : " communication matrix is in --json)\n");
  }
  return text;
}

}  // namespace shardplan::cli
