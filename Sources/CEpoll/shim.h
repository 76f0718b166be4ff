// Linux's readiness and wake-up primitives, which the toolchain's Glibc module
// leaves out: epoll (one wait over many sockets), eventfd (another thread wakes
// a loop) and timerfd (the load driver's microsecond pacing); and glibc's
// allocator controls (mallopt, malloc_trim), with which the server gives memory
// freed after a burst back to the system.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <malloc.h>
