/*
 * Asks the wall clock in a signal handler (SIGALRM every 20 us, as PostgreSQL's timeouts ask it) while
 * the main loop allocates and frees, until `signals` handlers have run. Then prints the wall clock's
 * seconds. Under a clock shim that allocates (libfaketime reading its file with fopen), a handler that
 * lands inside malloc corrupts the heap and the process aborts; under clock-shim.c it must not.
 * Usage: time-in-signal-handler <signals>
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t handled = 0;

static void on_alarm(int sig) {
  struct timeval now;
  struct timespec wall;
  gettimeofday(&now, NULL);
  clock_gettime(CLOCK_REALTIME, &wall);
  handled++;
  (void)sig;
}

int main(int argc, char **argv) {
  long signals = argc > 1 ? atol(argv[1]) : 20000;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_alarm;
  sigaction(SIGALRM, &action, NULL);
  struct itimerval timer = {{0, 20}, {0, 20}};
  setitimer(ITIMER_REAL, &timer, NULL);
  void *kept[64] = {0};
  unsigned seed = 1;
  while (handled < signals) {
    int slot = rand_r(&seed) % 64;
    free(kept[slot]);
    kept[slot] = malloc(16 + rand_r(&seed) % 4000);
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("%ld %ld\n", (long)handled, (long)time(NULL));
  return 0;
}
