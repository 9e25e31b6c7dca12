/* tiledcl devices: every platform and device, as text or JSON. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

static void usage(FILE *fp)
{
    fprintf(fp, "usage: tiledcl devices [--json]\n"
                "\n"
                "Lists every OpenCL platform and device with the 'P:D' index pair that\n"
                "--device accepts, and the limits tiledcl adapts to. The device marked '*'\n"
                "is the one chosen by default (or by --device / $TILEDCL_DEVICE).\n"
                "\n"
                "  --json   one JSON array of objects instead of text\n");
}

/* Writes s as a JSON string literal. */
static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void print_json(const tdcl_device_info *l, size_t n, size_t chosen)
{
    printf("[");
    for (size_t i = 0; i < n; i++) {
        const tdcl_device_info *d = &l[i];
        printf("%s\n  {\"index\": \"%u:%u\", \"platform\": ", i ? "," : "", d->pidx, d->didx);
        json_str(d->platform_name);
        printf(", \"device\": ");
        json_str(d->device_name);
        printf(", \"vendor\": ");
        json_str(d->device_vendor);
        printf(", \"type\": \"%s\", \"compute_units\": %u, \"clock_mhz\": %u, "
               "\"global_mem_bytes\": %llu, \"local_mem_bytes\": %llu, "
               "\"max_alloc_bytes\": %llu, \"max_work_group_size\": %zu, \"fp64\": %s, ",
               tdcl_cl_type_name(d->type), d->compute_units, d->clock_mhz,
               (unsigned long long)d->global_mem, (unsigned long long)d->local_mem,
               (unsigned long long)d->max_alloc, d->max_wg, d->fp64 ? "true" : "false");
        printf("\"opencl_version\": ");
        json_str(d->device_version);
        printf(", \"driver_version\": ");
        json_str(d->driver_version);
        printf(", \"default\": %s}", i == chosen ? "true" : "false");
    }
    printf("\n]\n");
}

static void print_text(const tdcl_device_info *l, size_t n, size_t chosen)
{
    for (size_t i = 0; i < n; i++) {
        const tdcl_device_info *d = &l[i];
        if (i == 0 || l[i - 1].pidx != d->pidx)
            printf("platform %u: %s (%s)\n", d->pidx, d->platform_name, d->platform_vendor);
        printf(" %c %u:%u  %s  [%s]\n", i == chosen ? '*' : ' ', d->pidx, d->didx, d->device_name,
               tdcl_cl_type_name(d->type));
        printf("        compute units %u, clock %u MHz, global memory %.1f GiB, max alloc "
               "%.1f GiB\n",
               d->compute_units, d->clock_mhz, d->global_mem / 1073741824.0,
               d->max_alloc / 1073741824.0);
        printf("        local memory %llu KiB, max work-group %zu, fp64 %s, %s, driver %s\n",
               (unsigned long long)(d->local_mem / 1024), d->max_wg, d->fp64 ? "yes" : "no",
               d->device_version, d->driver_version);
    }
}

int cmd_devices(int argc, char **argv, const cli_globals *g)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    int json = 0, c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return cli_usage_error("devices", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("devices", "unexpected argument '%s'", argv[optind]);
    tdcl_err err = {0};
    tdcl_device_info *list = NULL;
    size_t n = 0, chosen = (size_t)-1;
    tdcl_status st = tdcl_cl_devices(&list, &n, &err);
    if (st) return cli_report(&err);
    const char *spec = g->device_spec;
    tdcl_err pick_err;
    if (tdcl_cl_pick(list, n, spec, &chosen, &pick_err) != TDCL_OK) {
        chosen = (size_t)-1;
        fprintf(stderr, "tiledcl: warning: no device matches '%s'\n", spec);
    }
    if (json)
        print_json(list, n, chosen);
    else
        print_text(list, n, chosen);
    free(list);
    return 0;
}
