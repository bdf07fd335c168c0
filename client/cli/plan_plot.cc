#include "client/cli/plan_plot.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli/output.h"
#include "client/cli/svg_writer.h"

namespace shardplan::cli {
namespace {

constexpr double kPlotBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
constexpr char kFont[] = "DejaVu Sans, Helvetica, Arial, sans-serif";

constexpr char kComputeColor[] = "#4e79a7";
constexpr char kForwardColor[] = "#f28e2b";
constexpr char kBackwardColor[] = "#59a14f";
constexpr char kUsedColor[] = "#b07aa1";
constexpr char kCapacityColor[] = "#e8e8e8";
constexpr char kCapacityStroke[] = "#9e9e9e";
constexpr char kBottleneckColor[] = "#d62728";
constexpr char kGridColor[] = "#dddddd";
constexpr char kMutedColor[] = "#555555";

// Layout, pixels. A column is one plan: y-axis labels, the plot area, a gap to the next.
constexpr double kAxisMargin = 64;           // left of the plot area: tick labels and axis title
constexpr double kRightMargin = 24;          // right of the plot area
constexpr double kDevicePitch = 28;          // preferred width per device
constexpr double kMinPlotWidth = 420;        // a plot area is never narrower...
constexpr double kMaxTotalPlotWidth = 1800;  // ...and together at most this wide, unless narrow
constexpr double kMaxBarWidth = 56;
constexpr double kTimeHeight = 240;    // time panel
constexpr double kMemoryHeight = 150;  // memory panel
constexpr double kLabelGap = 34;       // below a panel: device labels and the axis title
constexpr double kWideBar = 34;        // a pitch from which bars carry their value

// Approximate text widths (DejaVu Sans), for layout and for cutting long names.
double TextWidth(absl::string_view text, double font_size) {
  return 0.58 * font_size * static_cast<double>(text.size());
}
size_t CharsThatFit(double width, double font_size) {
  return static_cast<size_t>(std::max(0.0, width / (0.6 * font_size)));
}

// One device's figures, checked.
struct DeviceFigures {
  int device = 0;
  double compute_ms = 0;
  double forward_ms = 0;
  double backward_ms = 0;
  double total_ms = 0;
  double used_gib = 0;
  double capacity_gib = 0;

  double stacked_ms() const { return compute_ms + forward_ms + backward_ms; }
  double top_ms() const { return std::max(total_ms, stacked_ms()); }
};

struct PlanFigures {
  std::vector<DeviceFigures> devices;  // by device number, 0..N-1
  size_t bottleneck = 0;               // index into devices
};

absl::Status Refuse(const PlotPlan& input, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(input.source, ": ", message));
}

absl::StatusOr<PlanFigures> CheckFigures(const PlotPlan& input) {
  const shardplan::v1::Plan& plan = input.plan;
  if (plan.devices().empty()) {
    return Refuse(input,
                  "the plan has no per-device figures (devices) to draw; plot draws plans as "
                  "'plan', 'get' and 'evaluate' write them with --format json (a TorchRec plan: "
                  "'shardplan evaluate TASK PLAN --json -o FILE' first)");
  }
  PlanFigures figures;
  figures.devices.resize(plan.devices_size());
  std::vector<bool> seen(plan.devices_size(), false);
  for (const auto& device : plan.devices()) {
    const int d = device.device();
    if (d < 0 || d >= plan.devices_size() || seen[d]) {
      return Refuse(
          input, absl::StrCat("devices must be numbered 0..", plan.devices_size() - 1,
                              " once each; device ", d, " is ",
                              d >= 0 && d < plan.devices_size() ? "listed twice" : "out of range"));
    }
    seen[d] = true;
    const std::pair<const char*, double> times[] = {{"compute_ms", device.compute_ms()},
                                                    {"forward_comm_ms", device.forward_comm_ms()},
                                                    {"backward_comm_ms", device.backward_comm_ms()},
                                                    {"total_ms", device.total_ms()}};
    for (const auto& [field, value] : times) {
      if (!std::isfinite(value) || value < 0) {
        return Refuse(input,
                      absl::StrCat("device ", d, ": ", field, " is ", value, ", not a time in ms"));
      }
    }
    if (device.memory_capacity_bytes() <= 0) {
      return Refuse(input, absl::StrCat("device ", d, " has no memory_capacity_bytes"));
    }
    if (device.memory_bytes() < 0) {
      return Refuse(input, absl::StrCat("device ", d, ": memory_bytes is negative"));
    }
    figures.devices[d] = {.device = d,
                          .compute_ms = device.compute_ms(),
                          .forward_ms = device.forward_comm_ms(),
                          .backward_ms = device.backward_comm_ms(),
                          .total_ms = device.total_ms(),
                          .used_gib = device.memory_bytes() / kPlotBytesPerGiB,
                          .capacity_gib = device.memory_capacity_bytes() / kPlotBytesPerGiB};
  }
  if (plan.bottleneck_device() < 0 || plan.bottleneck_device() >= plan.devices_size()) {
    return Refuse(input, absl::StrCat("bottleneck_device ", plan.bottleneck_device(),
                                      " is not one of its ", plan.devices_size(), " devices"));
  }
  figures.bottleneck = static_cast<size_t>(plan.bottleneck_device());
  return figures;
}

// A y axis from 0 to `top` in ticks of `step` (1, 2, 2.5 or 5 times a power of ten).
struct Axis {
  double top = 1;
  double step = 0.2;
  int decimals = 1;  // of the tick labels

  std::string Label(double value) const { return absl::StrFormat("%.*f", decimals, value); }
};

Axis NiceAxis(double max_value) {
  Axis axis;
  if (!(max_value > 0)) return axis;
  const double raw = max_value / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double multiple : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    axis.step = multiple * magnitude;
    if (axis.step >= raw * (1 - 1e-9)) break;
  }
  axis.top = std::ceil(max_value / axis.step - 1e-9) * axis.step;
  axis.decimals = 0;
  while (axis.decimals < 6) {
    const double scaled = axis.step * std::pow(10.0, axis.decimals);
    if (std::abs(scaled - std::round(scaled)) < 1e-6) break;
    ++axis.decimals;
  }
  return axis;
}

// Where one plan's column lies.
struct ColumnLayout {
  double left = 0;  // of the plot area
  double width = 0;
  double pitch = 0;  // per device
  double bar = 0;    // bar width

  double BarLeft(size_t index) const { return left + pitch * index + (pitch - bar) / 2; }
  double Center(size_t index) const { return left + pitch * (index + 0.5); }
};

class PlotDrawer {
 public:
  PlotDrawer(SvgWriter& svg, Axis time_axis, Axis memory_axis)
      : svg_(svg), time_axis_(time_axis), memory_axis_(memory_axis) {}

  // A panel's frame: grid lines with tick labels, the axis title, the caption above it.
  void Frame(const ColumnLayout& column, double top, double height, const Axis& axis,
             absl::string_view caption, absl::string_view unit) {
    svg_.Element("text",
                 {{"x", Num(column.left)},
                  {"y", Num(top - 10)},
                  {"font-size", "12"},
                  {"font-weight", "bold"},
                  {"fill", kMutedColor}},
                 caption);
    for (double value = 0; value <= axis.top * (1 + 1e-9); value += axis.step) {
      const double y = top + height - height * value / axis.top;
      svg_.Element("line", {{"x1", Num(column.left)},
                            {"x2", Num(column.left + column.width)},
                            {"y1", Num(y)},
                            {"y2", Num(y)},
                            {"stroke", value == 0 ? "#333333" : kGridColor},
                            {"stroke-width", "1"}});
      svg_.Element("text",
                   {{"x", Num(column.left - 6)},
                    {"y", Num(y + 4)},
                    {"font-size", "11"},
                    {"text-anchor", "end"},
                    {"fill", "#333333"}},
                   axis.Label(value));
    }
    const double x = column.left - kAxisMargin + 14;
    const double y = top + height / 2;
    svg_.Element("text",
                 {{"x", Num(x)},
                  {"y", Num(y)},
                  {"font-size", "12"},
                  {"text-anchor", "middle"},
                  {"transform", absl::StrCat("rotate(-90 ", Num(x), " ", Num(y), ")")}},
                 unit);
  }

  // Device numbers under a panel, thinned to every k-th (1, 2, 5, 10, 20, 50, ...) so that
  // they never overlap; the bottleneck device's number always, in red.
  void DeviceLabels(const ColumnLayout& column, double baseline, size_t count, size_t bottleneck) {
    const double label_width = TextWidth(absl::StrCat(count - 1), 11) + 8;
    size_t every = 1;
    for (size_t magnitude = 1; column.pitch * every < label_width; magnitude *= 10) {
      for (size_t multiple : {1, 2, 5}) {
        every = multiple * magnitude;
        if (column.pitch * every >= label_width) break;
      }
    }
    const double bottleneck_x = column.Center(bottleneck);
    for (size_t i = 0; i < count; i += every) {
      if (i == bottleneck || std::abs(column.Center(i) - bottleneck_x) < label_width) continue;
      svg_.Element("text",
                   {{"x", Num(column.Center(i))},
                    {"y", Num(baseline)},
                    {"font-size", "11"},
                    {"text-anchor", "middle"},
                    {"fill", "#333333"}},
                   absl::StrCat(i));
    }
    svg_.Element("text",
                 {{"class", "bottleneck-label"},
                  {"x", Num(bottleneck_x)},
                  {"y", Num(baseline)},
                  {"font-size", "11"},
                  {"font-weight", "bold"},
                  {"text-anchor", "middle"},
                  {"fill", kBottleneckColor}},
                 absl::StrCat(bottleneck));
    svg_.Element(
        "text",
        {{"x", Num(column.left + column.width / 2)},
         {"y", Num(baseline + 17)},
         {"font-size", "12"},
         {"text-anchor", "middle"}},
        every == 1 ? "device"
                   : absl::StrCat("device (every ", every, every == 2 ? "nd" : "th", " numbered)"));
  }

  void TimePanel(const ColumnLayout& column, double top, const PlanFigures& figures,
                 const shardplan::v1::Plan& plan, size_t plan_index) {
    Frame(column, top, kTimeHeight, time_axis_, "Time per iteration by device", "ms per iteration");
    const double scale = kTimeHeight / time_axis_.top;
    const double bottom = top + kTimeHeight;
    for (size_t i = 0; i < figures.devices.size(); ++i) {
      const DeviceFigures& device = figures.devices[i];
      svg_.Open("g", {{"class", "device"},
                      {"data-plan", absl::StrCat(plan_index)},
                      {"data-device", absl::StrCat(device.device)}});
      svg_.Element("title", {},
                   absl::StrCat("device ", device.device, ": compute ", FormatMs(device.compute_ms),
                                " ms, forward comm ", FormatMs(device.forward_ms),
                                " ms, backward comm ", FormatMs(device.backward_ms), " ms, total ",
                                FormatMs(device.total_ms), " ms"));
      double y = bottom;
      const std::pair<const char*, double> segments[] = {{"compute", device.compute_ms},
                                                         {"forward-comm", device.forward_ms},
                                                         {"backward-comm", device.backward_ms}};
      const char* colors[] = {kComputeColor, kForwardColor, kBackwardColor};
      for (size_t s = 0; s < 3; ++s) {
        const double height = segments[s].second * scale;
        y -= height;
        if (height <= 0) continue;
        svg_.Element("rect", {{"class", segments[s].first},
                              {"x", Num(column.BarLeft(i))},
                              {"y", Num(y)},
                              {"width", Num(column.bar)},
                              {"height", Num(height)},
                              {"fill", colors[s]}});
      }
      if (column.pitch >= kWideBar && i != figures.bottleneck) {
        svg_.Element("text",
                     {{"x", Num(column.Center(i))},
                      {"y", Num(bottom - device.top_ms() * scale - 4)},
                      {"font-size", "10"},
                      {"text-anchor", "middle"},
                      {"fill", "#333333"}},
                     absl::StrFormat("%.2f", device.total_ms));
      }
      svg_.Close();
    }
    Bottleneck(column, top, figures, plan);
    DeviceLabels(column, bottom + 15, figures.devices.size(), figures.bottleneck);
  }

  // The bottleneck bar outlined, a marker above it and its label: device and the plan's cost.
  void Bottleneck(const ColumnLayout& column, double top, const PlanFigures& figures,
                  const shardplan::v1::Plan& plan) {
    const DeviceFigures& device = figures.devices[figures.bottleneck];
    const double scale = kTimeHeight / time_axis_.top;
    const double bottom = top + kTimeHeight;
    const double bar_top = bottom - device.top_ms() * scale;
    const double width = std::max(column.bar, 3.0);
    const double center = column.Center(figures.bottleneck);
    svg_.Open("g", {{"class", "bottleneck"}, {"data-device", absl::StrCat(device.device)}});
    svg_.Element("rect", {{"x", Num(center - width / 2)},
                          {"y", Num(bar_top)},
                          {"width", Num(width)},
                          {"height", Num(bottom - bar_top)},
                          {"fill", "none"},
                          {"stroke", kBottleneckColor},
                          {"stroke-width", "2"}});
    const double tip = bar_top - 3;
    svg_.Element("path", {{"d", absl::StrCat("M", Num(center), " ", Num(tip), " l-5 -8 h10 z")},
                          {"fill", kBottleneckColor}});
    const std::string label =
        absl::StrCat("bottleneck: device ", device.device, ", ", FormatMs(plan.cost_ms()), " ms");
    // Centred over the bar, or flush with the panel's edge near it.
    const double half = TextWidth(label, 11) / 2;
    double x = center;
    std::string anchor = "middle";
    if (center - half < column.left) {
      x = std::max(column.left, center - 6);
      anchor = "start";
    } else if (center + half > column.left + column.width) {
      x = std::min(column.left + column.width, center + 6);
      anchor = "end";
    }
    svg_.Element("text",
                 {{"x", Num(x)},
                  {"y", Num(tip - 12)},
                  {"font-size", "11"},
                  {"font-weight", "bold"},
                  {"text-anchor", anchor},
                  {"fill", kBottleneckColor}},
                 label);
    svg_.Close();
  }

  void MemoryPanel(const ColumnLayout& column, double top, const PlanFigures& figures,
                   size_t plan_index) {
    Frame(column, top, kMemoryHeight, memory_axis_, "Memory used of capacity by device", "GiB");
    const double scale = kMemoryHeight / memory_axis_.top;
    const double bottom = top + kMemoryHeight;
    for (size_t i = 0; i < figures.devices.size(); ++i) {
      const DeviceFigures& device = figures.devices[i];
      const double percent = 100.0 * device.used_gib / device.capacity_gib;
      svg_.Open("g", {{"class", "memory"},
                      {"data-plan", absl::StrCat(plan_index)},
                      {"data-device", absl::StrCat(device.device)}});
      svg_.Element("title", {},
                   absl::StrFormat("device %d: %.2f of %.2f GiB (%.0f%%)", device.device,
                                   device.used_gib, device.capacity_gib, percent));
      const double capacity_height = device.capacity_gib * scale;
      svg_.Element("rect", {{"class", "capacity"},
                            {"x", Num(column.BarLeft(i))},
                            {"y", Num(bottom - capacity_height)},
                            {"width", Num(column.bar)},
                            {"height", Num(capacity_height)},
                            {"fill", kCapacityColor},
                            {"stroke", column.pitch >= 4 ? kCapacityStroke : "none"},
                            {"stroke-width", "0.8"}});
      const double used_height = device.used_gib * scale;
      if (used_height > 0) {
        svg_.Element("rect", {{"class", "used"},
                              {"x", Num(column.BarLeft(i))},
                              {"y", Num(bottom - used_height)},
                              {"width", Num(column.bar)},
                              {"height", Num(used_height)},
                              {"fill", kUsedColor}});
      }
      if (column.pitch >= kWideBar) {
        svg_.Element("text",
                     {{"x", Num(column.Center(i))},
                      {"y", Num(bottom - used_height - 4)},
                      {"font-size", "10"},
                      {"text-anchor", "middle"},
                      {"fill", "#333333"}},
                     absl::StrFormat("%.0f%%", percent));
      }
      svg_.Close();
    }
    DeviceLabels(column, bottom + 15, figures.devices.size(), figures.bottleneck);
  }

 private:
  SvgWriter& svg_;
  Axis time_axis_;
  Axis memory_axis_;
};

struct LegendItem {
  const char* fill;
  const char* stroke;
  const char* label;
};

constexpr LegendItem kLegend[] = {
    {kComputeColor, "none", "compute"},        {kForwardColor, "none", "forward comm"},
    {kBackwardColor, "none", "backward comm"}, {"none", kBottleneckColor, "bottleneck device"},
    {kUsedColor, "none", "memory used"},       {kCapacityColor, kCapacityStroke, "memory capacity"},
};

// The legend's items in rows that fit `width`; returns the y below it.
double Legend(SvgWriter& svg, double left, double top, double width) {
  double x = left;
  double y = top;
  svg.Open("g", {{"class", "legend"}, {"font-size", "12"}});
  for (const LegendItem& item : kLegend) {
    const double item_width = 14 + 6 + TextWidth(item.label, 12) + 20;
    if (x > left && x + item_width > left + width) {
      x = left;
      y += 20;
    }
    svg.Element("rect", {{"x", Num(x)},
                         {"y", Num(y - 10)},
                         {"width", "14"},
                         {"height", "12"},
                         {"fill", item.fill},
                         {"stroke", item.stroke},
                         {"stroke-width", item.fill == std::string("none") ? "2" : "1"}});
    svg.Element("text", {{"x", Num(x + 20)}, {"y", Num(y)}}, item.label);
    x += item_width;
  }
  svg.Close();
  return y + 12;
}

// "neuroshard · sim-rtx2080ti@2 · 18.867 ms", what a column's plan is.
std::string PlanTitle(const shardplan::v1::Plan& plan) {
  std::vector<std::string> parts;
  parts.push_back(plan.algorithm().empty() ? "evaluated plan" : plan.algorithm());
  parts.push_back(plan.cost_model().empty() ? "no cost model named" : plan.cost_model());
  std::string cost = absl::StrCat(FormatMs(plan.cost_ms()), " ms");
  if (plan.cost_kind() == "ground_truth") absl::StrAppend(&cost, " (ground truth)");
  parts.push_back(std::move(cost));
  return absl::StrJoin(parts, " \xC2\xB7 ");
}

}  // namespace

absl::StatusOr<std::string> PlotPlansSvg(const std::vector<PlotPlan>& plans,
                                         const PlotOptions& options) {
  if (plans.empty()) return absl::InvalidArgumentError("no plan to plot");
  std::vector<PlanFigures> figures;
  for (const PlotPlan& input : plans) {
    absl::StatusOr<PlanFigures> checked = CheckFigures(input);
    if (!checked.ok()) return checked.status();
    figures.push_back(*std::move(checked));
  }
  const size_t device_count = figures[0].devices.size();
  for (size_t p = 1; p < plans.size(); ++p) {
    if (figures[p].devices.size() != device_count) {
      return absl::InvalidArgumentError(absl::StrCat(
          "plans side by side must be of one task: ", plans[0].source, " has ", device_count,
          " devices, ", plans[p].source, " has ", figures[p].devices.size()));
    }
  }

  // One time scale and one memory scale for every plan, with room above the tallest bar for
  // the bottleneck's label.
  double max_ms = 0;
  double max_gib = 0;
  for (const PlanFigures& plan : figures) {
    for (const DeviceFigures& device : plan.devices) {
      max_ms = std::max(max_ms, device.top_ms());
      max_gib = std::max({max_gib, device.capacity_gib, device.used_gib});
    }
  }
  const Axis time_axis = NiceAxis(max_ms * 1.18);
  const Axis memory_axis = NiceAxis(max_gib * 1.08);

  const double columns = static_cast<double>(plans.size());
  const double plot_width = std::clamp(kDevicePitch * device_count, kMinPlotWidth,
                                       std::max(kMinPlotWidth, kMaxTotalPlotWidth / columns));
  const double column_width = kAxisMargin + plot_width + kRightMargin;
  const double width = 16 + columns * column_width;

  // Vertically: title, legend, then per column its title lines and the two panels.
  const double title_y = 30;
  double legend_height = 0;
  {
    SvgWriter probe(width, 1);
    legend_height = Legend(probe, 16, 0, width - 32);
  }
  const double header_y = title_y + 22 + legend_height + 26;
  const double time_top = header_y + 18 + 40;
  const double memory_top = time_top + kTimeHeight + kLabelGap + 44;
  const double height = memory_top + kMemoryHeight + kLabelGap + 16;

  SvgWriter svg(width, height);
  svg.Open("g", {{"font-family", kFont}, {"fill", "#222222"}});
  svg.Element("rect", {{"width", Num(width)}, {"height", Num(height)}, {"fill", "white"}});
  const std::string title =
      !options.title.empty() ? options.title
      : plans.size() == 1 ? absl::StrCat("Cost and memory per device: ", device_count, " devices")
                          : absl::StrCat("Cost and memory per device: ", plans.size(), " plans of ",
                                         device_count, " devices, same scales");
  svg.Element("text",
              {{"class", "title"},
               {"x", "16"},
               {"y", Num(title_y)},
               {"font-size", "18"},
               {"font-weight", "bold"}},
              Ellipsize(title, CharsThatFit(width - 32, 18)));
  Legend(svg, 16, title_y + 28, width - 32);

  PlotDrawer drawer(svg, time_axis, memory_axis);
  for (size_t p = 0; p < plans.size(); ++p) {
    ColumnLayout column;
    column.left = 16 + p * column_width + kAxisMargin;
    column.width = plot_width;
    column.pitch = plot_width / static_cast<double>(device_count);
    column.bar = column.pitch < 3 ? column.pitch : std::min(column.pitch * 0.72, kMaxBarWidth);
    const double text_left = column.left - kAxisMargin + 14;
    const double text_width = column_width - 14;
    svg.Open("g", {{"class", "plan"}, {"data-plan", absl::StrCat(p)}});
    svg.Element("text",
                {{"class", "plan-title"},
                 {"x", Num(text_left)},
                 {"y", Num(header_y)},
                 {"font-size", "14"},
                 {"font-weight", "bold"}},
                Ellipsize(PlanTitle(plans[p].plan), CharsThatFit(text_width, 14)));
    svg.Element("text",
                {{"x", Num(text_left)},
                 {"y", Num(header_y + 18)},
                 {"font-size", "12"},
                 {"fill", kMutedColor}},
                Ellipsize(absl::StrCat(plans[p].source, " \xC2\xB7 bottleneck device ",
                                       figures[p].bottleneck, " of ", device_count),
                          CharsThatFit(text_width, 12)));
    drawer.TimePanel(column, time_top, figures[p], plans[p].plan, p);
    drawer.MemoryPanel(column, memory_top, figures[p], p);
    svg.Close();
  }
  return std::move(svg).Finish();
}

}  // namespace shardplan::cli
