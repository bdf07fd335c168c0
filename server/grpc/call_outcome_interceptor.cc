#include "server/grpc/call_outcome_interceptor.h"

#include <string>

#include "server/grpc/status_conversion.h"
#include "server/logging.h"

namespace shardplan {
namespace {

using grpc::experimental::InterceptionHookPoints;

class CallOutcomeInterceptor final : public grpc::experimental::Interceptor {
 public:
  CallOutcomeInterceptor(grpc::experimental::ServerRpcInfo* info, ServerMetrics* metrics)
      : method_(info->method() != nullptr ? info->method() : ""), metrics_(metrics) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      // Null when the request's bytes did not parse into the method's message.
      if (methods->GetRecvMessage() != nullptr) parsed_ = true;
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      const std::string code = GrpcCodeName(status.error_code());
      metrics_->RecordGrpcCall(method_, code);
      // Our handlers always say why; gRPC's own refusal of bytes that do not parse says
      // nothing and comes before any handler.
      if (status.error_code() == grpc::StatusCode::INTERNAL && status.error_message().empty() &&
          !parsed_) {
        Log(LogLevel::kWarn, "request refused before its handler: its bytes do not parse",
            {{"method", method_}, {"code", code}}, "unparsed request " + method_);
      }
    }
    methods->Proceed();
  }

 private:
  const std::string method_;
  ServerMetrics* const metrics_;
  bool parsed_ = false;
};

}  // namespace

grpc::experimental::Interceptor* CallOutcomeInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new CallOutcomeInterceptor(info, metrics_);
}

std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
CallOutcomeInterceptors(ServerMetrics* metrics) {
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(std::make_unique<CallOutcomeInterceptorFactory>(metrics));
  return creators;
}

}  // namespace shardplan
