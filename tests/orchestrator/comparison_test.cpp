#include "orchestrator/comparison.h"
