/*
** model_card_file.h: the base model a model's card names (README.md beside
** the file that names the model: in a download folder, a Hugging Face
** snapshot or an hf:// repo alike), read with formats/model_card.h.
** Layer: paths (through the byte source, local or remote).
*/
#ifndef WT_MODEL_CARD_FILE_H
#define WT_MODEL_CARD_FILE_H

#include <stddef.h>

/* The most bytes of README.md read: its front matter must end in them. */
#define WT_CARD_READ_MAX ((size_t)256 << 10)

/* base_model of the card beside model file path into out (cap bytes): one
** name as it is, several (a merge: the Hub's model tree shows each) joined
** by ", " in the card's order.  0 with out set ("" when there is no card,
** no front matter or no base_model); -1 when the card cannot be read or
** its base_model is not a string or a list of strings (out is ""). */
int wt_card_base_model(const char *path, char *out, size_t cap);

#endif
