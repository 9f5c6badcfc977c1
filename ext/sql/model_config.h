/*
** model_config.h: the model_config(path) table (model_config.c).
** Layer: sql.
*/
#ifndef WT_MODEL_CONFIG_H
#define WT_MODEL_CONFIG_H

#include "vtab.h"

extern const wt_table_def wt_model_config_table;

#endif
