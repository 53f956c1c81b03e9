"""The latent-class (Dawid–Skene) cross-check data: 40 items, four experts and a judge, with
the fixed point of an independent implementation."""

# 40 items, four experts (each even item lacks one), and a judge. The expected figures are the
# fixed point of a separate Dawid–Skene EM written for this check and kept outside the project
# (xcheck_ds.py: the classic confusion-matrix form with class priors, loops over patients and
# observers, the same vote-share start, stopping when no parameter moves by 1e-14; numpy
# 2.4.6, Python 3.11.7).
ROWS = ["00.0", "1000", "101.", "0000", "00.1", "0100", ".000", "0000", ".110", "1010",
        "000.", "0000", "1.11", "0000", "111.", "0100", ".111", "0000", "101.", "1111",
        ".000", "1111", "00.0", "0101", "0.00", "0000", ".010", "1101", "1.10", "0000",
        "0.10", "1110", ".000", "1001", "0.11", "0000", ".101", "0001", "00.0", "1111"]  # fmt: skip
JUDGE = "1010101010000010101101010011100000001111"
# prevalence, loglik, (sensitivity, specificity) per rater, then the judge held out
XCHECK_HELD_OUT = {
    "prevalence": 0.4494813279884976,
    "log_likelihood": -79.51831107579642,
    "raters": [
        (0.8459453868032593, 0.9587063540763093),
        (0.6306965996944083, 0.8649418974381344),
        (0.7824501342203453, 0.9371322740604696),
        (0.6147509512428669, 0.8674426169682792),
    ],
    "judge": (0.6735549797840703, 0.732525669519319),
    "posterior[:6]": [
        0.0242746777,
        0.4240621079,
        0.9888745595,
        0.0057422593,
        0.2062161303,
        0.0594136156,
    ],
}
# The same with the judge as a fifth rater: it pulls the latent truth towards itself.
XCHECK_AS_RATER = {
    "prevalence": 0.5354160173504997,
    "log_likelihood": -101.53119477367193,
    "raters": [
        (0.702912103172185, 0.9413878868057598),
        (0.5588569857165633, 0.887361773330927),
        (0.7147723560888066, 0.949498270317182),
        (0.6520282371247305, 1.0),
    ],
    "judge": (0.7356069625146173, 0.8791515594770676),
    "posterior[:6]": [0.2769213745, 0.1776293627, 0.9983135199, 0.0056518205, 1.0, 0.0536813539],
}
