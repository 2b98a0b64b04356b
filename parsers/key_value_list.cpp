#include "parsers/key_value_list.h"
