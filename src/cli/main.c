/* tiledcl's entry point: global options, the command table, dispatch.
 *
 * Global options (--device, --kernels, --no-cache, -v, -q) are accepted
 * before or after the command name; they are taken out of argv here so each
 * command parses only its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/fileio.h"
#include "base/hash.h"
#include "base/log.h"
#include "base/proc.h"
#include "dist/exec.h"
#include "dist/mpi.h"

static const cli_command commands[] = {
    {"matmul", cmd_matmul, NEEDS_DEVICE | SHARDS | RANKS, "dense matrix product C = A*B"},
    {"tile-avg", cmd_tile_avg, NEEDS_DEVICE | SHARDS | RANKS,
     "mean of each tile of a matrix or image"},
    {"tile-map", cmd_tile_map, NEEDS_DEVICE, "how a tiled launch numbers its work-items"},
    {"life", cmd_life, NEEDS_DEVICE | SHARDS | RANKS, "Game of Life and Life-like rules"},
    {"convert", cmd_convert, 0, "convert between matrix, image and Life file formats"},
    {"devices", cmd_devices, 0, "list OpenCL platforms and devices"},
    {"bench", cmd_bench, NEEDS_DEVICE | SHARDS | RANKS | OWN_SET,
     "measure the operations on a device"},
    {"tune", cmd_tune, NEEDS_DEVICE, "search and store the fastest matmul kernel parameters"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *fp)
{
    fprintf(fp, "usage: tiledcl [global options] COMMAND [options] [args]\n"
                "\n"
                "Runs tiled OpenCL kernels (local-memory tiles, barriers) on any OpenCL device.\n"
                "\n"
                "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "\n"
                "global options (before or after COMMAND):\n"
                "  --device SPEC  device to use: 'P:D' as 'tiledcl devices' lists it, a type\n"
                "                 (gpu, cpu, accelerator) or part of the platform or device\n"
                "                 name; default $TILEDCL_DEVICE, else the first GPU, else the\n"
                "                 first device. A set of devices, for the commands that\n"
                "                 split their work (life, matmul, tile-avg): all, gpu:all,\n"
                "                 cpu:all or a list P:D,P:D\n"
                "  --kernels DIR  load kernels (.cl) from DIR\n"
                "  --no-cache     do not use the compiled-kernel cache\n"
                "  -v, --verbose  show choices and a timing breakdown (-vv: build logs too)\n"
                "  -q, --quiet    no progress messages\n"
                "  -h, --help     this help; 'tiledcl help COMMAND' for a command's\n"
                "  --version      print the version\n"
                "\n"
                "exit status: 0 success, 1 bad input or runtime failure, 2 usage error,\n"
                "             3 no usable device or OpenCL failure\n"
                "\n"
                "environment: TILEDCL_DEVICE, TILEDCL_KERNEL_PATH (':'-separated kernel\n"
                "directories), TILEDCL_CACHE=0 (no kernel cache), XDG_CACHE_HOME\n");
}

static void log_to_stderr(tdcl_log_level level, const char *msg, void *user)
{
    static int tty = -1;
    (void)user;
    if (tty < 0) tty = isatty(STDERR_FILENO);
    if (level == TDCL_LOG_STATUS && !tty) return; /* for a person watching, not a log file */
    cli_put_line(stderr, level == TDCL_LOG_WARN ? "tiledcl: warning: " : "tiledcl: ", msg, "\n");
}

/* Takes a global option at argv[i] if it is one: fills g, returns how many
 * argv entries it used (0 if not a global option, -1 on a missing value). */
static int take_global(int argc, char **argv, int i, cli_globals *g)
{
    const char *a = argv[i];
    static const char *valued[] = {"--device", "--kernels"};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(valued[k]);
        const char **dst = k == 0 ? &g->device_spec : &g->kernel_dir;
        if (strcmp(a, valued[k]) == 0) {
            if (i + 1 >= argc) return -1;
            *dst = argv[i + 1];
            return 2;
        }
        if (strncmp(a, valued[k], n) == 0 && a[n] == '=') {
            *dst = a + n + 1;
            return 1;
        }
    }
    if (strcmp(a, "--no-cache") == 0) {
        g->no_cache = 1;
        return 1;
    }
    if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
        g->verbose++;
        return 1;
    }
    if (strcmp(a, "-vv") == 0) {
        g->verbose += 2;
        return 1;
    }
    if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
        g->quiet = 1;
        return 1;
    }
    return 0;
}

/* Removes global options from argv in place; returns the new argc or -1. */
static int strip_globals(int argc, char **argv, cli_globals *g)
{
    int out = 1;
    for (int i = 1; i < argc;) {
        if (strcmp(argv[i], "--") == 0) { /* the rest are operands */
            while (i < argc)
                argv[out++] = argv[i++];
            break;
        }
        int used = take_global(argc, argv, i, g);
        if (used < 0) {
            cli_usage_error(NULL, "option '%s' needs a value", argv[i]);
            return -1;
        }
        if (used == 0)
            argv[out++] = argv[i++];
        else
            i += used;
    }
    argv[out] = NULL;
    return out;
}

/* 1 if the command's arguments ask for its help (before any "--"). */
static int asks_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return 1;
    return 0;
}

/* Runs cmd. For a NEEDS_DEVICE command the device is opened on a thread
 * while the command parses and reads its inputs; the command waits for it
 * when it first needs it. */
static int run_main(int argc, char **argv, cli_globals *gp);

static int run_command(const cli_command *cmd, int argc, char **argv, cli_globals *g)
{
    const char *spec = g->device_spec;
    tdcl_exec ex = {.kind = tdcl_exec_kind_of(spec, g->ranks), .spec = spec, .ranks = g->ranks};
    if (ex.kind == TDCL_EXEC_RANKS && !(cmd->flags & RANKS)) {
        if (tdcl_mpi_rank() == 0)
            fprintf(stderr, "tiledcl: %s: runs as one process, not as %d MPI ranks\n", cmd->name,
                    g->ranks);
        return 1;
    }
    if ((cmd->flags & NEEDS_DEVICE) && ex.kind == TDCL_EXEC_SET && !(cmd->flags & SHARDS))
        return cli_usage_error(cmd->name, "runs on one device; '%s' names several", spec);
    g->exec = &ex;
    if (ex.kind == TDCL_EXEC_RANKS) /* each rank's runner opens its device */
        return cmd->fn(argc, argv, g);
    int own_set = ex.kind == TDCL_EXEC_SET && (cmd->flags & OWN_SET);
    if ((cmd->flags & NEEDS_DEVICE) && !own_set && !asks_help(argc, argv)) {
        tdcl_ctx_opts o = {.kernel_dir = g->kernel_dir, .no_cache = g->no_cache};
        tdcl_err err = {0};
        tdcl_status st = tdcl_exec_open(spec, g->ranks, &o, &ex, &err);
        g->ctx = ex.ctx;
        if (st) {
            tdcl_exec_close(&ex);
            return cli_report(&err);
        }
    }
    int rc = cmd->fn(argc, argv, g);
    if (g->ctx && rc == 0 && g->verbose && tdcl_ctx_wait(g->ctx, NULL) == TDCL_OK)
        tdcl_timing_log(&g->ctx->t);
#ifndef __SANITIZE_ADDRESS__
    /* A finished run leaves without releasing the device: destroying an
     * NVIDIA context and unloading its driver take tens of milliseconds the
     * user would wait for, and the kernel reclaims all of it. Even so, the
     * kernel's own release of the context after _exit took 100-140 ms on
     * an H200, before the shell saw the status; outside MPI (whose launcher
     * follows its processes) a helper that outlives this process by a
     * moment takes that over. The outputs are committed; only stdio is left
     * to flush. Sanitized builds release everything, so that leak checks
     * keep their meaning. */
    if (g->ctx && rc == 0 && tdcl_ctx_wait(g->ctx, NULL) == TDCL_OK && fflush(stdout) == 0 &&
        !ferror(stdout) && fflush(stderr) == 0) {
        if (g->ranks == 0) tdcl_proc_detach_teardown();
        _exit(0);
    }
#endif
    tdcl_exec_close(&ex);
    g->ctx = NULL;
    g->exec = NULL;
    return rc;
}

/* Under mpirun, before anything else: every rank was started with rank
 * 0's command and options (argv after the global options, which may
 * differ by host: a device, a kernel directory, -v). Ranks that run other
 * work would wait on each other's collectives forever. 0, or the exit
 * status, the differing rank (the lowest) having said which. */
static int same_args(int argc, char **argv)
{
    tdcl_err err = {0};
    char shown[512] = "";
    size_t used = 0;
    uint64_t sum = 0;
    for (int i = 1; i < argc; i++) {
        sum = tdcl_hash64(sum, argv[i], strlen(argv[i]) + 1);
        if (used < sizeof shown)
            used += (size_t)snprintf(shown + used, sizeof shown - used, "%s%s", i > 1 ? " " : "",
                                     argv[i]);
    }
    tdcl_status st = tdcl_mpi_same("was started with different arguments", shown, sum, &err);
    if (st && !err.msg[0]) return tdcl_exit_code(st); /* another rank says it */
    return st ? cli_report(&err) : 0;
}

int main(int argc, char **argv)
{
    cli_globals g = {0};
    argc = strip_globals(argc, argv, &g);
    if (argc < 0) return CLI_EXIT_USAGE;
    g.device_spec = tdcl_device_spec(g.device_spec); /* --device, else $TILEDCL_DEVICE */
    tdcl_log_level level = g.quiet ? TDCL_LOG_WARN : TDCL_LOG_STATUS;
    if (g.verbose) level = g.verbose > 1 ? TDCL_LOG_DEBUG : TDCL_LOG_VERBOSE;
    tdcl_log_set(log_to_stderr, NULL, level);
    tdcl_out_install_signal_cleanup();

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    /* Under mpirun: MPI, if this tiledcl has it; otherwise refuse rather
     * than run the same job once per rank. */
    int rank = 0, ranks = tdcl_mpi_launched_size(&rank);
    if (ranks > 1 && !tdcl_mpi_built()) {
        if (rank == 0)
            fprintf(stderr,
                    "tiledcl: started as %d MPI ranks, but this tiledcl was built without "
                    "MPI (meson setup -Dmpi=enabled); run one process, or use --device "
                    "LIST for several devices of this host\n",
                    ranks);
        return 1;
    }
    if (ranks > 0 && tdcl_mpi_built()) {
        tdcl_err err = {0};
        if (tdcl_mpi_init(&err)) return cli_report(&err);
        g.ranks = tdcl_mpi_size();
        int rc = same_args(argc, argv);
        if (rc == 0) rc = run_main(argc, argv, &g);
        tdcl_mpi_finalize();
        return rc;
    }
    return run_main(argc, argv, &g);
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0) return &commands[i];
    return NULL;
}

/* main after the global options and MPI: the command's name and dispatch. */
static int run_main(int argc, char **argv, cli_globals *gp)
{
    cli_globals g = *gp;
    const char *name = argv[1];
    const cli_command *cmd = NULL;
    int help = strcmp(name, "help") == 0 && argc > 2;
    if (help && (cmd = find_command(argv[2]))) {
        /* "help CMD [SUB]" is "CMD [SUB] --help": argv[argc] is the slot
         * for the NULL that ends the shifted list */
        memmove(argv + 1, argv + 2, (size_t)(argc - 2) * sizeof *argv);
        argv[argc - 1] = "--help";
        argv[argc] = NULL;
        return cli_close_stdout(run_command(cmd, argc - 1, argv + 1, &g));
    }
    if (help) {
        name = argv[2]; /* named below as the unknown command it is */
    } else if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 ||
               strcmp(name, "help") == 0) {
        usage(stdout);
        return cli_close_stdout(0);
    } else if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("tiledcl %s\nmpi: %s\n", TDCL_CLI_VERSION, tdcl_mpi_built() ? "yes" : "no");
        return cli_close_stdout(0);
    } else if ((cmd = find_command(name))) {
        return cli_close_stdout(run_command(cmd, argc - 1, argv + 1, &g));
    } else if (name[0] == '-') {
        return cli_usage_error(NULL, "unknown option '%s'", name);
    }
    char list[256] = "";
    for (size_t i = 0; i < NCOMMANDS; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", commands[i].name);
    }
    return cli_usage_error(NULL, "unknown command '%s' (commands: %s)", name, list);
}
