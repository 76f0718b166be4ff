// Linux's readiness and wake-up primitives, which the toolchain's Glibc module
// leaves out: epoll (one wait over many sockets), eventfd (another thread wakes
// a loop) and timerfd (the load driver's microsecond pacing).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
