// `shardplan plot`'s picture: well-formed SVG, one bar per device, the bottleneck marked, names
// escaped, shared scales side by side, thinned labels at many devices, and the refusals.

#include "client/cli/plan_plot.h"

#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/client/cli/xml_check_test_util.h"

namespace shardplan::cli {
namespace {

using ::shardplan::cli::testing::XmlProblem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kGiB = int64_t{1} << 30;

// A plan of `devices` devices, device d costing (d + 1) * scale ms of compute and a tenth of that
// in each direction of communication; the last device is the bottleneck.
shardplan::v1::Plan MakePlan(int devices, double scale = 1.0) {
  shardplan::v1::Plan plan;
  plan.set_algorithm("neuroshard");
  plan.set_cost_model("sim-rtx2080ti@2");
  plan.set_cost_kind("simulated");
  for (int d = 0; d < devices; ++d) {
    auto* device = plan.add_devices();
    device->set_device(d);
    device->set_compute_ms((d + 1) * scale);
    device->set_forward_comm_ms(0.1 * (d + 1) * scale);
    device->set_backward_comm_ms(0.1 * (d + 1) * scale);
    device->set_total_ms(1.2 * (d + 1) * scale);
    device->set_memory_bytes((d + 1) * kGiB);
    device->set_memory_capacity_bytes(16 * kGiB);
  }
  plan.set_bottleneck_device(devices - 1);
  plan.set_cost_ms(1.2 * devices * scale);
  return plan;
}

std::string Plot(const std::vector<PlotPlan>& plans, const PlotOptions& options = {}) {
  absl::StatusOr<std::string> svg = PlotPlansSvg(plans, options);
  EXPECT_TRUE(svg.ok()) << svg.status();
  if (!svg.ok()) return "";
  EXPECT_EQ(XmlProblem(*svg), "") << *svg;
  return *svg;
}

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

// The height of every <rect class="CLASS"> inside <g ... data-plan="P" data-device="D">, keyed
// by (P, D).
std::map<std::pair<int, int>, double> RectHeights(const std::string& svg, const std::string& cls) {
  std::map<std::pair<int, int>, double> heights;
  const std::regex group(
      R"re(<g class="(?:device|memory)" data-plan="(\d+)" data-device="(\d+)">)re");
  const std::regex rect("<rect class=\"" + cls + R"re(" [^>]*height="([0-9.]+)")re");
  const std::vector<std::string> lines = [&] {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t end; (end = svg.find('\n', start)) != std::string::npos; start = end + 1) {
      out.push_back(svg.substr(start, end - start));
    }
    return out;
  }();
  std::pair<int, int> key{-1, -1};
  for (const std::string& line : lines) {
    std::smatch match;
    if (std::regex_search(line, match, group)) {
      key = {std::stoi(match[1]), std::stoi(match[2])};
    } else if (std::regex_search(line, match, rect)) {
      double height = 0;
      EXPECT_TRUE(absl::SimpleAtod(match[1].str(), &height));
      heights[key] = height;
    }
  }
  return heights;
}

TEST(PlanPlotTest, OneBarAndOneMemoryBarPerDevice) {
  const std::string svg = Plot({{MakePlan(4), "plan.json"}});
  EXPECT_EQ(Count(svg, "<g class=\"device\""), 4);
  EXPECT_EQ(Count(svg, "<g class=\"memory\""), 4);
  EXPECT_EQ(Count(svg, "<rect class=\"compute\""), 4);
  EXPECT_EQ(Count(svg, "<rect class=\"forward-comm\""), 4);
  EXPECT_EQ(Count(svg, "<rect class=\"backward-comm\""), 4);
  EXPECT_EQ(Count(svg, "<rect class=\"capacity\""), 4);
  EXPECT_EQ(Count(svg, "<rect class=\"used\""), 4);
  // Title, plan title (algorithm, model, cost), source, legend and axis titles.
  EXPECT_THAT(svg, HasSubstr(">Cost and memory per device: 4 devices</text>"));
  EXPECT_THAT(svg, HasSubstr(">neuroshard \xC2\xB7 sim-rtx2080ti@2 \xC2\xB7 4.800 ms</text>"));
  EXPECT_THAT(svg, HasSubstr(">plan.json \xC2\xB7 bottleneck device 3 of 4</text>"));
  for (const char* label : {">compute<", ">forward comm<", ">backward comm<", ">memory used<",
                            ">memory capacity<", ">ms per iteration<", ">GiB<", ">device<"}) {
    EXPECT_THAT(svg, HasSubstr(label));
  }
  // Tooltips carry the figures; wide bars carry their totals and memory shares.
  EXPECT_THAT(svg, HasSubstr("<title>device 1: compute 2.000 ms, forward comm 0.200 ms, "
                             "backward comm 0.200 ms, total 2.400 ms</title>"));
  EXPECT_THAT(svg, HasSubstr("<title>device 1: 2.00 of 16.00 GiB (12%)</title>"));
  EXPECT_THAT(svg, HasSubstr(">2.40</text>"));
  EXPECT_THAT(svg, HasSubstr(">12%</text>"));
}

TEST(PlanPlotTest, BarsAreProportionalToTheFigures) {
  const std::string svg = Plot({{MakePlan(4), "plan.json"}});
  const auto compute = RectHeights(svg, "compute");
  const auto used = RectHeights(svg, "used");
  const auto capacity = RectHeights(svg, "capacity");
  ASSERT_EQ(compute.size(), 4u);
  for (int d = 1; d < 4; ++d) {
    EXPECT_NEAR(compute.at({0, d}) / compute.at({0, 0}), d + 1, 0.02) << d;
    EXPECT_NEAR(used.at({0, d}) / used.at({0, 0}), d + 1, 0.02) << d;
    EXPECT_NEAR(capacity.at({0, d}), capacity.at({0, 0}), 0.01);
  }
  EXPECT_NEAR(capacity.at({0, 0}) / used.at({0, 0}), 16, 0.2);
}

TEST(PlanPlotTest, MarksTheBottleneckWithThePlansCost) {
  shardplan::v1::Plan plan = MakePlan(4);
  plan.mutable_devices(1)->set_compute_ms(50);  // no longer the tallest, still the one named
  plan.set_bottleneck_device(2);
  plan.set_cost_ms(3.6);
  const std::string svg = Plot({{plan, "plan.json"}});
  EXPECT_EQ(Count(svg, "<g class=\"bottleneck\""), 1);
  EXPECT_THAT(svg, HasSubstr("<g class=\"bottleneck\" data-device=\"2\">"));
  EXPECT_THAT(svg, HasSubstr(">bottleneck: device 2, 3.600 ms</text>"));
  // Its device number is the red one under both panels.
  EXPECT_EQ(Count(svg, "class=\"bottleneck-label\""), 2);
  EXPECT_THAT(svg, HasSubstr("fill=\"#d62728\">2</text>"));
}

TEST(PlanPlotTest, EscapesNamesAndTitles) {
  shardplan::v1::Plan plan = MakePlan(2);
  plan.set_algorithm("greedy<&>\"'");
  plan.set_cost_model("model&co@1");
  PlotOptions options;
  options.title = "tables <a> & \"b\"";
  const std::string svg = Plot({{plan, "dir/<plan>&.json"}}, options);
  EXPECT_THAT(svg, HasSubstr(">tables &lt;a&gt; &amp; &quot;b&quot;</text>"));
  EXPECT_THAT(svg, HasSubstr("greedy&lt;&amp;&gt;&quot;&apos; \xC2\xB7 model&amp;co@1"));
  EXPECT_THAT(svg, HasSubstr(">dir/&lt;plan&gt;&amp;.json \xC2\xB7"));
  EXPECT_THAT(svg, Not(HasSubstr("<a>")));
}

TEST(PlanPlotTest, LongNamesAreCutToTheirColumn) {
  shardplan::v1::Plan plan = MakePlan(2);
  plan.set_algorithm(std::string(500, 'x'));
  const std::string svg = Plot({{plan, "plan.json"}});
  EXPECT_THAT(svg, HasSubstr("x\xE2\x80\xA6</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(std::string(200, 'x'))));
}

TEST(PlanPlotTest, TwoPlansSideBySideShareTheirScales) {
  shardplan::v1::Plan torchrec = MakePlan(4, /*scale=*/2.0);
  torchrec.set_algorithm("torchrec");
  torchrec.set_cost_model("analytic@1");
  shardplan::v1::Plan small_memory = MakePlan(4);
  for (auto& device : *small_memory.mutable_devices()) {
    device.set_memory_capacity_bytes(8 * kGiB);
  }
  const std::string svg = Plot({{small_memory, "neuroshard.json"}, {torchrec, "torchrec.json"}});
  EXPECT_EQ(Count(svg, "<g class=\"plan\""), 2);
  EXPECT_EQ(Count(svg, "<g class=\"device\""), 8);
  EXPECT_THAT(svg, HasSubstr(">Cost and memory per device: 2 plans of 4 devices, same scales<"));
  EXPECT_THAT(svg, HasSubstr(">neuroshard \xC2\xB7 sim-rtx2080ti@2 \xC2\xB7 4.800 ms<"));
  EXPECT_THAT(svg, HasSubstr(">torchrec \xC2\xB7 analytic@1 \xC2\xB7 9.600 ms<"));
  EXPECT_EQ(Count(svg, "<g class=\"bottleneck\""), 2);
  // The same ms and the same GiB are the same height in both columns.
  const auto compute = RectHeights(svg, "compute");
  const auto capacity = RectHeights(svg, "capacity");
  const auto used = RectHeights(svg, "used");
  for (int d = 0; d < 4; ++d) {
    EXPECT_NEAR(compute.at({1, d}) / compute.at({0, d}), 2.0, 0.02) << d;
    EXPECT_NEAR(capacity.at({1, d}) / capacity.at({0, d}), 2.0, 0.02) << d;
    EXPECT_NEAR(used.at({1, d}), used.at({0, d}), 0.01) << d;
  }
  // One set of tick labels, drawn once per column.
  const std::regex tick(R"re(text-anchor="end" fill="#333333">([0-9.]+)</text>)re");
  std::map<std::string, int> ticks;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator();
       ++it) {
    ++ticks[(*it)[1]];
  }
  ASSERT_FALSE(ticks.empty());
  for (const auto& [label, count] : ticks) EXPECT_EQ(count % 2, 0) << label;
}

TEST(PlanPlotTest, ManyDevicesThinTheirLabelsAndStayReadable) {
  const std::string svg = Plot({{MakePlan(256), "big.json"}, {MakePlan(256), "big2.json"}});
  EXPECT_EQ(Count(svg, "<g class=\"device\""), 512);
  EXPECT_EQ(Count(svg, "<g class=\"bottleneck\""), 2);
  // Device numbers every k-th device only, and no per-bar value labels.
  const std::regex label(R"re(text-anchor="middle" fill="#333333">(\d+)</text>)re");
  int labels = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator();
       ++it) {
    ++labels;
  }
  EXPECT_GT(labels, 8);
  EXPECT_LT(labels, 4 * 40);  // two panels, two plans
  EXPECT_THAT(svg, HasSubstr(">device (every "));
  EXPECT_THAT(svg, Not(HasSubstr("%</text>")));
  std::smatch width;
  ASSERT_TRUE(std::regex_search(svg, width, std::regex(R"re(<svg [^>]*width="([0-9.]+)")re")));
  EXPECT_LE(std::stod(width[1]), 2200);
}

absl::Status PlotError(const std::vector<PlotPlan>& plans) {
  absl::StatusOr<std::string> svg = PlotPlansSvg(plans);
  EXPECT_FALSE(svg.ok());
  return svg.status();
}

TEST(PlanPlotTest, RefusesPlansWithoutTheFigures) {
  shardplan::v1::Plan shards_only = MakePlan(2);
  shards_only.clear_devices();
  const absl::Status no_devices = PlotError({{shards_only, "torchrec_plan.json"}});
  EXPECT_EQ(no_devices.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_devices.message(), HasSubstr("torchrec_plan.json: the plan has no per-device"));
  EXPECT_THAT(no_devices.message(), HasSubstr("shardplan evaluate TASK PLAN --json"));

  shardplan::v1::Plan no_capacity = MakePlan(3);
  no_capacity.mutable_devices(1)->clear_memory_capacity_bytes();
  EXPECT_THAT(PlotError({{no_capacity, "p.json"}}).message(),
              HasSubstr("p.json: device 1 has no memory_capacity_bytes"));

  shardplan::v1::Plan not_a_time = MakePlan(3);
  not_a_time.mutable_devices(2)->set_forward_comm_ms(std::numeric_limits<double>::quiet_NaN());
  EXPECT_THAT(PlotError({{not_a_time, "p.json"}}).message(),
              HasSubstr("device 2: forward_comm_ms is nan, not a time in ms"));
  not_a_time.mutable_devices(2)->set_forward_comm_ms(-1);
  EXPECT_THAT(PlotError({{not_a_time, "p.json"}}).message(), HasSubstr("forward_comm_ms is -1"));

  shardplan::v1::Plan twice = MakePlan(3);
  twice.mutable_devices(2)->set_device(0);
  EXPECT_THAT(PlotError({{twice, "p.json"}}).message(),
              HasSubstr("devices must be numbered 0..2 once each; device 0 is listed twice"));
  twice.mutable_devices(2)->set_device(7);
  EXPECT_THAT(PlotError({{twice, "p.json"}}).message(), HasSubstr("device 7 is out of range"));

  shardplan::v1::Plan lost_bottleneck = MakePlan(3);
  lost_bottleneck.set_bottleneck_device(3);
  EXPECT_THAT(PlotError({{lost_bottleneck, "p.json"}}).message(),
              HasSubstr("p.json: bottleneck_device 3 is not one of its 3 devices"));

  EXPECT_THAT(PlotError({}).message(), HasSubstr("no plan"));
}

TEST(PlanPlotTest, RefusesPlansOfDifferentDeviceCountsSideBySide) {
  const absl::Status status = PlotError({{MakePlan(4), "a.json"}, {MakePlan(8), "job 0ddb"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "plans side by side must be of one task: a.json has 4 devices, job 0ddb has 8");
}

TEST(PlanPlotTest, ZeroCostsStillDraw) {
  shardplan::v1::Plan idle = MakePlan(2, /*scale=*/0.0);
  idle.set_cost_ms(0);
  const std::string svg = Plot({{idle, "idle.json"}});
  EXPECT_EQ(Count(svg, "<rect class=\"compute\""), 0);
  EXPECT_EQ(Count(svg, "<g class=\"bottleneck\""), 1);
}

}  // namespace
}  // namespace shardplan::cli
