#include "parsers/pm_output.h"
