/* dynamic.c -- binding of wpart.dynamic: the Balancer type and the simple baselines. */
#include "wpy.h"

int wpy_dynamic_init(PyObject *m)
{
    if (wpy_dynamic_model_init(m) < 0 || wpy_dynamic_plbhac_init(m) < 0 ||
        wpy_dynamic_baselines_init(m) < 0 || wpy_dynamic_sim_init(m) < 0 ||
        wpy_dynamic_exec_init(m) < 0) {
        return -1;
    }
    return 0;
}
