/*
** model_card_test.c: formats/model_card.h on hand-written model cards:
** each case is a card, the key asked and what must come back (the items
** joined by "|", or "ERROR:" and a part of the message).  The cases follow
** the front matter the Hub writes and reads (huggingface_hub's
** ModelCardData: base_model as a string or a list) and YAML 1.2's rules for
** the forms the reader refuses.
**
** Prints "model_card: N passed, M failed"; exit status 1 on a failure.
*/
#include <stdio.h>
#include <string.h>

#include "formats/model_card.h"

static const struct {
  const char *card, *key, *want;
} cases[] = {
    /* the forms taken */
    {"---\nbase_model: org/name\n---\n# Card\n", "base_model", "org/name"},
    {"---\r\nlicense: mit\r\nbase_model: org/name   # the base\r\n---\r\n", "base_model",
     "org/name"},
    {"\xef\xbb\xbf---\nbase_model: \"org/na\\\"me\"\n---\n", "base_model", "org/na\"me"},
    {"---\nbase_model: 'it''s'  \n...\n", "base_model", "it's"},
    {"---\nbase_model: [org/a, \"org/b\", 'org/c']\n---\n", "base_model", "org/a|org/b|org/c"},
    {"---\nbase_model: []\n---\n", "base_model", ""},
    {"---\nbase_model:\n- org/a\n- org/b\nlicense: mit\n---\n", "base_model", "org/a|org/b"},
    {"---\nbase_model:\n  # a comment\n  - org/a\n\n  - 'org/b'   # the other\n---\n", "base_model",
     "org/a|org/b"},
    {"---\nbase_model:\nlicense: mit\n---\n", "base_model", ""},
    {"---\nbase_model: null\n---\n", "base_model", ""},
    {"---\nbase_model: ~\n---\n", "base_model", ""},
    {"---\nbase_model: a#b\n---\n", "base_model", "a#b"},
    {"---\nbase_model: https://huggingface.co/org/name\n---\n", "base_model",
     "https://huggingface.co/org/name"},
    /* other keys are skipped whatever they hold */
    {"---\nmodel-index:\n- name: x\n  results:\n  - task: {type: y}\nbase_model: org/n\n---\n",
     "base_model", "org/n"},
    {"---\nwidget:\n  - text: |\n      base_model: not/this\nbase_model: org/n\n---\n",
     "base_model", "org/n"},
    {"---\nbase_model_relation: merge\n---\n", "base_model", ""},
    /* no front matter, or no such key */
    {"# A card\nbase_model: org/n\n", "base_model", ""},
    {"", "base_model", ""},
    {"---\nlicense: mit\n---\nbase_model: org/n\n", "base_model", ""},
    /* refused */
    {"---\nbase_model: org/n\n", "base_model", "ERROR:does not end"},
    {"---\nbase_model: org/a\nbase_model: org/b\n---\n", "base_model",
     "ERROR:line 3: base_model repeats"},
    {"---\nbase_model:\n  name: org/n\n---\n", "base_model", "ERROR:nested mapping"},
    {"---\nbase_model: |\n  org/n\n---\n", "base_model", "ERROR:block scalar"},
    {"---\nbase_model: &a org/n\n---\n", "base_model", "ERROR:an anchor"},
    {"---\nbase_model: *a\n---\n", "base_model", "ERROR:an alias"},
    {"---\nbase_model: !!str org/n\n---\n", "base_model", "ERROR:a tag"},
    {"---\nbase_model: {name: org/n}\n---\n", "base_model", "ERROR:a flow mapping"},
    {"---\nbase_model: [org/a,\n  org/b]\n---\n", "base_model", "ERROR:does not end on its line"},
    {"---\nbase_model: [[org/a]]\n---\n", "base_model", "ERROR:a list in a list"},
    {"---\nbase_model:\n- - org/a\n---\n", "base_model", "ERROR:a list in a list"},
    {"---\nbase_model:\n- name: org/a\n---\n", "base_model", "ERROR:a mapping"},
    {"---\nbase_model:\n  - org/a\n    - org/b\n---\n", "base_model", "ERROR:indented differently"},
    {"---\nbase_model:\n-\n---\n", "base_model", "ERROR:an empty list item"},
    {"---\nbase_model: [a, , b]\n---\n", "base_model", "ERROR:an empty item"},
    {"---\nbase_model: \"org/n\n---\n", "base_model", "ERROR:does not end on its line"},
    {"---\nbase_model: \"a\\x41\"\n---\n", "base_model", "ERROR:escape"},
    {"---\nbase_model: \"a\\tb\"\n---\n", "base_model", "ERROR:control character"},
    {"---\nbase_model: org/\xff\n---\n", "base_model", "ERROR:not valid UTF-8"},
    {"---\nbase_model: - org/n\n---\n", "base_model", "ERROR:on the key's own line"},
    {"---\nbase_model: a: b\n---\n", "base_model", "ERROR:a mapping"},
    {"---\nbase_model: 'a' b\n---\n", "base_model", "ERROR:text after a quoted string"},
    {"---\n[oops]\n---\n", "base_model", "ERROR:line 2: a line that is not"},
};

/* The items of out (count of them) joined by "|" into buf. */
static void join(const char *out, size_t count, char *buf, size_t size) {
  size_t i, at = 0;
  buf[0] = 0;
  for (i = 0; i < count; i++) {
    at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? "|" : "", out);
    out += strlen(out) + 1;
  }
}

int main(void) {
  char out[1024], got[1200];
  size_t i, count, cap;
  int passed = 0, failed = 0;
  wt_error err;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const char *want = cases[i].want;
    int rc = wt_card_values(cases[i].card, strlen(cases[i].card), cases[i].key, out, sizeof(out),
                            &count, &err);
    if (rc != 0)
      snprintf(got, sizeof(got), "ERROR:%s", err.msg);
    else
      join(out, count, got, sizeof(got));
    if (strncmp(want, "ERROR:", 6) == 0 ? rc == 0 || strstr(got, want + 6) == NULL
                                        : rc != 0 || strcmp(got, want) != 0) {
      printf("FAILED: case %zu: got %s, want %s\n", i, got, want);
      failed++;
    } else {
      passed++;
    }
  }
  /* bounded: the items must fit the buffer, at most WT_CARD_MAX_ITEMS of them */
  for (cap = 0; cap < 14; cap++) {
    int rc = wt_card_values("---\nbase_model: [org/a, org/b]\n---\n", 35, "base_model", out, cap,
                            &count, &err);
    if ((rc == 0) != (cap >= 12) || (rc != 0 && strstr(err.msg, "take more than") == NULL)) {
      printf("FAILED: a buffer of %zu bytes: rc %d %s\n", cap, rc, rc ? err.msg : "");
      failed++;
    } else {
      passed++;
    }
  }
  {
    char card[2048];
    int at = snprintf(card, sizeof(card), "---\nbase_model:\n"), k;
    for (k = 0; k <= WT_CARD_MAX_ITEMS; k++)
      at += snprintf(card + at, sizeof(card) - (size_t)at, "- m%d\n", k);
    snprintf(card + at, sizeof(card) - (size_t)at, "---\n");
    if (wt_card_values(card, strlen(card), "base_model", out, sizeof(out), &count, &err) == 0 ||
        strstr(err.msg, "more than 64 items") == NULL) {
      printf("FAILED: %d items were taken\n", WT_CARD_MAX_ITEMS + 1);
      failed++;
    } else {
      passed++;
    }
  }
  printf("model_card: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
