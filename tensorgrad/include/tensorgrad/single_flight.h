// singleFlight(fn): overlapping calls coalesce to "latest wins" — at most one call in flight and
// one queued; a queued call displaced by a newer one completes as aborted. For UI-driven
// inference: `auto predict = tg::singleFlight([&](tg::Feed f) { return fwd.run(f); });` — the
// argument and result types come from the callable, as TypeScript infers them; a generic lambda
// (an `auto` parameter) has none to give, so it spells them: `singleFlight<Feed, RunResult>(fn)`.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

#include "tensorgrad/runtime.h"

namespace tg {

template <class R>
struct SingleFlightResult {
  ResultKind kind = ResultKind::Aborted;  // Completed or Aborted
  std::optional<R> value{};               // Completed
};

template <class A, class R>
class SingleFlight {
 public:
  explicit SingleFlight(std::function<std::future<R>(A)> fn)
      : state_(std::make_shared<State>()) {
    state_->fn = std::move(fn);
  }

  std::future<SingleFlightResult<R>> operator()(A arg) const {
    std::promise<SingleFlightResult<R>> promise;
    auto result = promise.get_future();
    std::lock_guard lock(state_->mutex);
    if (state_->active) {
      if (state_->pending) state_->pending->second.set_value({ResultKind::Aborted, std::nullopt});
      state_->pending.emplace(std::move(arg), std::move(promise));
      return result;
    }
    state_->active = true;
    // One waiter thread runs the in-flight call, then whatever is queued when it finishes.
    std::thread(drain, state_, std::move(arg), std::move(promise)).detach();
    return result;
  }

 private:
  struct State {
    std::function<std::future<R>(A)> fn;
    std::mutex mutex;
    bool active = false;
    std::optional<std::pair<A, std::promise<SingleFlightResult<R>>>> pending;
  };

  static void drain(std::shared_ptr<State> state, A arg, std::promise<SingleFlightResult<R>> promise) {
    for (;;) {
      try {
        promise.set_value({ResultKind::Completed, state->fn(std::move(arg)).get()});
      } catch (...) {
        promise.set_exception(std::current_exception());
      }
      std::lock_guard lock(state->mutex);
      if (!state->pending) {
        state->active = false;
        return;
      }
      arg = std::move(state->pending->first);
      promise = std::move(state->pending->second);
      state->pending.reset();
    }
  }

  std::shared_ptr<State> state_;
};

template <class A, class R>
SingleFlight<A, R> singleFlight(std::function<std::future<R>(A)> fn) {
  return SingleFlight<A, R>(std::move(fn));
}

namespace detail {
// R of a std::future<R> or tg::Future<R>.
template <class T>
struct FutureValue {};
template <class R>
struct FutureValue<std::future<R>> {
  using type = R;
};
template <class R>
struct FutureValue<Future<R>> {
  using type = R;
};
// The (argument, result) of a one-argument callable returning std::future<R> or tg::Future<R>:
// a lambda or function object through its operator(), or a function pointer. The argument is
// decayed, so a callable taking `const Feed&` queues a Feed.
template <class F, class = void>
struct SingleFlightSignature {};
template <class Ret, class A>
struct SingleFlightSignature<Ret (*)(A), std::void_t<typename FutureValue<Ret>::type>> {
  using Arg = std::decay_t<A>;
  using Result = typename FutureValue<Ret>::type;
};
template <class Ret, class A>
struct SingleFlightSignature<Ret (*)(A) noexcept, std::void_t<typename FutureValue<Ret>::type>>
    : SingleFlightSignature<Ret (*)(A)> {};
template <class M>
struct SingleFlightMember {};
template <class C, class Ret, class A>
struct SingleFlightMember<Ret (C::*)(A)> : SingleFlightSignature<Ret (*)(A)> {};
template <class C, class Ret, class A>
struct SingleFlightMember<Ret (C::*)(A) const> : SingleFlightSignature<Ret (*)(A)> {};
template <class C, class Ret, class A>
struct SingleFlightMember<Ret (C::*)(A) noexcept> : SingleFlightSignature<Ret (*)(A)> {};
template <class C, class Ret, class A>
struct SingleFlightMember<Ret (C::*)(A) const noexcept> : SingleFlightSignature<Ret (*)(A)> {};
template <class F>
struct SingleFlightSignature<F, std::void_t<decltype(&F::operator())>>
    : SingleFlightMember<decltype(&F::operator())> {};
template <class F, class = void>
inline constexpr bool kSingleFlightDeducible = false;
template <class F>
inline constexpr bool kSingleFlightDeducible<
    F, std::void_t<typename SingleFlightSignature<F>::Arg,
                   typename SingleFlightSignature<F>::Result>> = true;
}  // namespace detail

// singleFlight(fn) with the types deduced from `fn` (a lambda, function object or function
// pointer taking one argument and returning std::future<R> or tg::Future<R>).
template <class F>
auto singleFlight(F fn) {
  static_assert(detail::kSingleFlightDeducible<F>,
                "tg::singleFlight: cannot deduce the argument and result types of this callable "
                "(it must take one argument and return std::future<R> or tg::Future<R>, and "
                "not be a generic lambda); write tg::singleFlight<Arg, Result>(fn)");
  using Sig = detail::SingleFlightSignature<F>;
  return SingleFlight<typename Sig::Arg, typename Sig::Result>(std::move(fn));
}

}  // namespace tg
