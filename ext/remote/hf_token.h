/*
** hf_token.h: the Hugging Face token a request may carry, and where it comes
** from: HF_TOKEN, then HUGGING_FACE_HUB_TOKEN, then the file $HF_TOKEN_PATH,
** else $HF_HOME/token, else ~/.cache/huggingface/token (the order of
** huggingface_hub's constants.py and utils/_auth.py).  Whether a request may
** carry it at all is url.h's rule (the URL's host and port are
** HF_ENDPOINT's).  No SQLite, no network.
*/
#ifndef WT_HF_TOKEN_H
#define WT_HF_TOKEN_H

#include <stddef.h>

/* The longest token file path looked at, and the longest token used. */
#define WT_HF_TOKEN_PATH_MAX 4096
#define WT_HF_TOKEN_MAX      4096

/* The token into buf (size bytes), CR, LF and surrounding spaces removed;
** "" when there is none, or when it holds a control byte (it is never put
** in a header then). */
void wt_hf_token(char *buf, size_t size);

#endif
