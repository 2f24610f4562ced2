#ifndef COMMON_HELPER_TIMER_LITE_H_
#define COMMON_HELPER_TIMER_LITE_H_
#include <chrono>

class StopWatch {
 public:
  void start() { t0_ = std::chrono::steady_clock::now(); }
  void stop() { elapsed_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count(); }
  double ms() const { return elapsed_; }
  void reset() { elapsed_ = 0.0; }

 private:
  std::chrono::steady_clock::time_point t0_;
  double elapsed_ = 0.0;
};
#endif
