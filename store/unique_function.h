// UniqueFunction<R(Args...)>: a move-only std::function (std::move_only_function is C++23). The
// store's completion callbacks are these, so an Asio completion handler (move-only) can be
// passed as is, without dragging Asio into store/'s headers.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace droidlab::store {

template <class Signature>
class UniqueFunction;

template <class R, class... Args>
class UniqueFunction<R(Args...)> {
 public:
  UniqueFunction() = default;
  UniqueFunction(std::nullptr_t) {}  // NOLINT(google-explicit-constructor)
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, UniqueFunction>>>
  UniqueFunction(F&& f)  // NOLINT(google-explicit-constructor)
      : impl_(std::make_unique<Impl<std::decay_t<F>>>(std::forward<F>(f))) {}

  UniqueFunction(UniqueFunction&&) noexcept = default;
  UniqueFunction& operator=(UniqueFunction&&) noexcept = default;

  explicit operator bool() const { return impl_ != nullptr; }
  R operator()(Args... args) { return impl_->Call(std::forward<Args>(args)...); }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual R Call(Args... args) = 0;
  };
  template <class F>
  struct Impl final : Base {
    explicit Impl(F&& f) : f_(std::move(f)) {}
    explicit Impl(const F& f) : f_(f) {}
    R Call(Args... args) override { return f_(std::forward<Args>(args)...); }
    F f_;
  };
  std::unique_ptr<Base> impl_;
};

}  // namespace droidlab::store
