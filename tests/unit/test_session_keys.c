/* Session keys: key pairs written and read back (the secret one mode 0600,
 * never replaced unless asked), the authorised-keys format with its line
 * numbers in errors, and which endpoints count as local. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ensemble.h"

static char s_dir[64];

static int s_setup(void **state) {
  (void)state;
  snprintf(s_dir, sizeof s_dir, "/tmp/ens-keys-XXXXXX");
  return mkdtemp(s_dir) ? 0 : -1;
}

static int s_teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void s_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_keypair_files(void **state) {
  (void)state;
  ens_keypair k, back;
  assert_int_equal(ens_keypair_generate(&k), 0);
  assert_true(ens_key_is_valid(k.public_key));
  assert_true(ens_key_is_valid(k.secret_key));
  assert_string_not_equal(k.public_key, k.secret_key);
  assert_int_equal(ens_keypair_write(s_dir, &k, 0), 0);

  char key[128], pub[128];
  snprintf(key, sizeof key, "%s/ensemble.key", s_dir);
  snprintf(pub, sizeof pub, "%s/ensemble.pub", s_dir);
  struct stat st;
  assert_int_equal(stat(key, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(stat(pub, &st), 0);
  assert_int_equal(st.st_mode & 0077 & ~0044, 0); /* readable by others, writable by none */

  assert_int_equal(ens_keypair_read(s_dir, &back), 0);
  assert_string_equal(back.public_key, k.public_key);
  assert_string_equal(back.secret_key, k.secret_key);

  /* never replaced unless asked; nothing left behind by the refusal */
  ens_keypair other;
  assert_int_equal(ens_keypair_generate(&other), 0);
  assert_int_equal(ens_keypair_write(s_dir, &other, 0), ENS_EEXISTS);
  assert_int_equal(ens_keypair_read(s_dir, &back), 0);
  assert_string_equal(back.secret_key, k.secret_key);
  assert_int_equal(ens_keypair_write(s_dir, &other, 1), 0);
  assert_int_equal(ens_keypair_read(s_dir, &back), 0);
  assert_string_equal(back.secret_key, other.secret_key);
  assert_int_equal(stat(key, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  char cmd[160];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 2", s_dir);
  assert_int_equal(system(cmd), 0);

  /* the public key, from its file or as text */
  char p[ENS_KEY_LEN + 1];
  assert_int_equal(ens_public_key_read(pub, p), 0);
  assert_string_equal(p, other.public_key);
  assert_int_equal(ens_public_key_read(other.public_key, p), 0);
  assert_string_equal(p, other.public_key);
  assert_int_equal(ens_public_key_read("/nonexistent/ensemble.pub", p), ENS_EINVAL);

  /* a secret key others can read is refused, and its text is not shown */
  chmod(key, 0644);
  assert_int_equal(ens_keypair_read(s_dir, &back), ENS_EINVAL);
  assert_non_null(strstr(ens_error_last(), "chmod 600"));
  assert_null(strstr(ens_error_last(), other.secret_key));
  chmod(key, 0600);
  /* a public key file that does not match */
  s_write(pub, k.public_key);
  assert_int_equal(ens_keypair_read(s_dir, &back), ENS_EINVAL);
  assert_null(strstr(ens_error_last(), other.secret_key));
  /* a damaged secret key */
  s_write(key, "not a key\n");
  chmod(key, 0600);
  assert_int_equal(ens_keypair_read(s_dir, &back), ENS_EDECODE);
}

static void s_parse_fails(const char *text, const char *where, const char *what) {
  ens_authorized_keys *k = (void *)1;
  int rc = ens_authorized_keys_parse(text, strlen(text), "keys.txt", &k);
  if (rc == 0) fail_msg("accepted: %s", text);
  assert_null(k);
  if (!strstr(ens_error_last(), where) || !strstr(ens_error_last(), what))
    fail_msg("error \"%s\" lacks \"%s\" or \"%s\"", ens_error_last(), where, what);
}

static void test_authorized_keys(void **state) {
  (void)state;
  ens_keypair a, b;
  assert_int_equal(ens_keypair_generate(&a), 0);
  assert_int_equal(ens_keypair_generate(&b), 0);
  char text[1024];
  snprintf(text, sizeof text, "# the team\n\n  %s alice\r\n%s\tBob Smith  \n# end\n", a.public_key, b.public_key);
  ens_authorized_keys *k;
  assert_int_equal(ens_authorized_keys_parse(text, strlen(text), "keys.txt", &k), 0);
  assert_int_equal(ens_authorized_keys_count(k), 2);
  assert_string_equal(ens_authorized_keys_find(k, a.public_key), "alice");
  assert_string_equal(ens_authorized_keys_find(k, b.public_key), "Bob Smith");
  assert_null(ens_authorized_keys_find(k, a.secret_key));
  assert_int_equal(ens_authorized_keys_add(k, a.public_key, "again"), ENS_EEXISTS);
  ens_authorized_keys_free(k);

  char path[128];
  snprintf(path, sizeof path, "%s/authorized", s_dir);
  s_write(path, text);
  assert_int_equal(ens_authorized_keys_load(path, &k), 0);
  assert_int_equal(ens_authorized_keys_count(k), 2);
  ens_authorized_keys_free(k);
  assert_int_equal(ens_authorized_keys_load("/nonexistent/authorized", &k), ENS_EIO);

  /* an empty file lists nobody (a server refuses to start on it) */
  assert_int_equal(ens_authorized_keys_parse("# nobody\n", 9, "keys.txt", &k), 0);
  assert_int_equal(ens_authorized_keys_count(k), 0);
  ens_authorized_keys_free(k);

  snprintf(text, sizeof text, "# x\n\n%.39s alice\n", a.public_key);
  s_parse_fails(text, "keys.txt:3:", "40 characters");
  snprintf(text, sizeof text, "%s\n", a.public_key);
  s_parse_fails(text, "keys.txt:1:", "no name");
  snprintf(text, sizeof text, "%s alice\n%s alice again\n", a.public_key, a.public_key);
  s_parse_fails(text, "keys.txt:2:", "listed twice");
  snprintf(text, sizeof text, "%s alice\n%.39s~ bob\n", a.public_key, b.public_key);
  s_parse_fails(text, "keys.txt:2:", "not Z85");
  snprintf(text, sizeof text, "%s %s\n", a.public_key,
           "a name much longer than sixty-four bytes, which is what a name may hold at most");
  s_parse_fails(text, "keys.txt:1:", "1..64 bytes");
  snprintf(text, sizeof text, "\n\n\n\nssh-ed25519 AAAAC3Nza alice@host\n");
  s_parse_fails(text, "keys.txt:5:", "40 characters");
}

static void test_local_endpoints(void **state) {
  (void)state;
  assert_true(ens_endpoint_is_local("tcp://127.0.0.1:7890"));
  assert_true(ens_endpoint_is_local("tcp://127.1.2.3:*"));
  assert_true(ens_endpoint_is_local("tcp://localhost:7890"));
  assert_true(ens_endpoint_is_local("tcp://[::1]:7890"));
  assert_true(ens_endpoint_is_local("ipc:///tmp/x"));
  assert_true(ens_endpoint_is_local("inproc://x"));
  assert_false(ens_endpoint_is_local("tcp://*:7890"));
  assert_false(ens_endpoint_is_local("tcp://0.0.0.0:7890"));
  assert_false(ens_endpoint_is_local("tcp://192.168.1.5:7890"));
  assert_false(ens_endpoint_is_local("tcp://eth0:7890"));
  assert_false(ens_endpoint_is_local("tcp://127.evil.example:7890"));
  assert_false(ens_endpoint_is_local("tcp://[::]:7890"));
  assert_false(ens_endpoint_is_local("ws://127.0.0.1:7890"));
  assert_false(ens_endpoint_is_local(NULL));

  /* the server applies it when it has no keys */
  ens_server_opts o;
  memset(&o, 0, sizeof o);
  char store[128];
  snprintf(store, sizeof store, "%s/log.db", s_dir);
  o.endpoint = "tcp://0.0.0.0:*";
  o.store_path = store;
  ens_server *srv = (void *)1;
  assert_int_equal(ens_server_new(&o, &srv), ENS_EINVAL);
  assert_null(srv);
  assert_non_null(strstr(ens_error_last(), "local"));
  /* keys need both halves */
  ens_keypair k;
  assert_int_equal(ens_keypair_generate(&k), 0);
  o.endpoint = "tcp://127.0.0.1:*";
  o.secret_key = k.secret_key;
  assert_int_equal(ens_server_new(&o, &srv), ENS_EINVAL);
  ens_authorized_keys *none = ens_authorized_keys_new();
  o.authorized_keys = none;
  assert_int_equal(ens_server_new(&o, &srv), ENS_EINVAL);
  ens_authorized_keys_free(none);
  /* --insecure lets it bind anywhere */
  memset(&o, 0, sizeof o);
  o.endpoint = "tcp://0.0.0.0:*";
  o.store_path = store;
  o.insecure = 1;
  assert_int_equal(ens_server_new(&o, &srv), 0);
  ens_server_free(srv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_keypair_files, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_authorized_keys, s_setup, s_teardown),
      cmocka_unit_test_setup_teardown(test_local_endpoints, s_setup, s_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
