// The headers the load driver needs beyond Glibc: one epoll set waits on every
// client socket and on a timerfd that paces the writer with microsecond precision.
#include <sys/epoll.h>
#include <sys/timerfd.h>
