/*
** fake_curl.h: the file that tests/fuzz/fake_curl.c serves for every URL,
** and what it counts.
*/
#ifndef FAKE_CURL_H
#define FAKE_CURL_H

#include <stddef.h>

extern const unsigned char *fake_curl_data; /* the file's bytes */
extern size_t fake_curl_size;
extern size_t fake_curl_piece;           /* body bytes per write callback */
extern unsigned long fake_curl_requests; /* performs so far */

#endif
