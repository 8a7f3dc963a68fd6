"""core's optimizers, gradient clipping, regularizers and learning-rate schedules against
PaddlePaddle itself.

Every expected number below came from paddlepaddle 3.3.1 (CPU) running the same setting: the
script's parameters ``w`` (2x3) and ``b`` (3) start at ``W0`` / ``B0``; each step computes
``loss = sum(tanh(X @ w + b) * C)``, calls ``backward()``, ``opt.step()`` and ``clear_grad()``;
a schedule is read after construction and after each ``step()``. The parameters are float64
(``sgd_clip_norm_float32``: float32, the only dtype of Paddle's CPU ``clip_by_norm`` kernel)
and every hyper-parameter is a power of two, so that Paddle's float32 attributes (``beta1``,
``epsilon``, ``momentum``, ...) hold exactly the value core uses in float64: with such values
core agrees with Paddle to rounding (about 1e-14). With other values Paddle rounds its
hyper-parameters to float32 and the two differ by about 1e-7 relative (docs/paddle.md,
"Optimizer rules and state"). Paddle is not imported here.
"""
import numpy as np
import pytest

import core
from core import optimizer as opt_mod
from core.optimizer import lr

X = np.array([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0], [1.0, 1.0]])
C = np.array([1.0, -2.0, 0.5])
W0 = np.array([[0.25, -0.5, 1.0], [0.75, 0.125, -1.5]])
B0 = np.array([0.5, -0.25, 0.0625])
E = 2.0 ** -10  # epsilon, exact in float32

L1, L2 = core.regularizer.L1Decay, core.regularizer.L2Decay
OPTIMIZERS = {  # name -> (make(params, w, b), w's ParamAttr fields)
    "momentum_nesterov_l2": lambda ps, w, b: opt_mod.Momentum(
        0.0625, momentum=0.75, use_nesterov=True, parameters=ps, weight_decay=0.125),
    "adam": lambda ps, w, b: opt_mod.Adam(
        0.015625, beta1=0.75, beta2=0.875, epsilon=E, parameters=ps),
    "adamw_decay_fun": lambda ps, w, b: opt_mod.AdamW(
        0.015625, beta1=0.75, beta2=0.875, epsilon=E, weight_decay=0.25, parameters=ps,
        apply_decay_param_fun=lambda n: n == w.name),
    "adamax_l1": lambda ps, w, b: opt_mod.Adamax(
        0.015625, beta1=0.75, beta2=0.875, epsilon=E, parameters=ps, weight_decay=L1(0.125)),
    "adagrad": lambda ps, w, b: opt_mod.Adagrad(
        0.125, epsilon=E, parameters=ps, initial_accumulator_value=0.125),
    "adadelta": lambda ps, w, b: opt_mod.Adadelta(1.0, epsilon=E, rho=0.75, parameters=ps),
    "rmsprop_centered": lambda ps, w, b: opt_mod.RMSProp(
        0.015625, rho=0.75, epsilon=E, momentum=0.5, centered=True, parameters=ps),
    "lamb_exclude": lambda ps, w, b: opt_mod.Lamb(
        0.015625, lamb_weight_decay=0.125, beta1=0.75, beta2=0.875, epsilon=E, parameters=ps,
        exclude_from_weight_decay_fn=lambda p: p.name == b.name),
    "nadam": lambda ps, w, b: opt_mod.NAdam(
        0.015625, beta1=0.75, beta2=0.875, epsilon=E, momentum_decay=0.0625, parameters=ps),
    "radam": lambda ps, w, b: opt_mod.RAdam(
        0.015625, beta1=0.75, beta2=0.875, epsilon=E, parameters=ps),
    "asgd": lambda ps, w, b: opt_mod.ASGD(0.125, batch_num=2, parameters=ps),
    "rprop": lambda ps, w, b: opt_mod.Rprop(
        0.0625, learning_rate_range=(0.001, 0.125), etas=(0.5, 1.5), parameters=ps),
    # w's ParamAttr L1Decay(0.25) wins over the optimizer's L2Decay(0.5); b gets the L2
    "sgd_param_l1_beats_optimizer_l2": lambda ps, w, b: opt_mod.SGD(
        0.125, parameters=ps, weight_decay=L2(0.5)),
    "sgd_groups": lambda ps, w, b: opt_mod.SGD(
        0.125, parameters=[{"params": [w], "learning_rate": 0.5, "weight_decay": 0.25},
                           {"params": [b]}], weight_decay=L1(0.125)),
    # w has need_clip=False: it is neither clipped nor counted in the global norm
    "sgd_clip_global_need_clip": lambda ps, w, b: opt_mod.SGD(
        0.125, parameters=ps, grad_clip=core.nn.ClipGradByGlobalNorm(0.25)),
    "sgd_clip_value": lambda ps, w, b: opt_mod.SGD(
        0.125, parameters=ps, grad_clip=core.nn.ClipGradByValue(0.25, -0.125)),
    "sgd_clip_norm_float32": lambda ps, w, b: opt_mod.SGD(
        0.125, parameters=ps, grad_clip=core.nn.ClipGradByNorm(0.25)),
}
W_ATTR = {"sgd_param_l1_beats_optimizer_l2": {"regularizer": L1(0.25)},
          "sgd_clip_global_need_clip": {"need_clip": False}}

SCHEDULES = {
    "noam": lambda: lr.NoamDecay(d_model=16, warmup_steps=4, learning_rate=2.0),
    "polynomial_cycle": lambda: lr.PolynomialDecay(0.5, decay_steps=4, end_lr=0.0625,
                                                   power=2.0, cycle=True),
    "linear_warmup_step": lambda: lr.LinearWarmup(lr.StepDecay(0.5, step_size=3, gamma=0.5),
                                                  warmup_steps=4, start_lr=0.125, end_lr=0.5),
    "one_cycle_three_phase": lambda: lr.OneCycleLR(
        1.0, total_steps=14, divide_factor=8.0, end_learning_rate=0.001, phase_pct=0.25,
        anneal_strategy="linear", three_phase=True),
    "one_cycle_cos": lambda: lr.OneCycleLR(1.0, total_steps=14),
    "cyclic_triangular2": lambda: lr.CyclicLR(0.125, 1.0, step_size_up=2, step_size_down=3,
                                              mode="triangular2"),
    "cyclic_exp_range": lambda: lr.CyclicLR(0.125, 1.0, step_size_up=3, mode="exp_range",
                                            exp_gamma=0.875),
    "cosine_warm_restarts": lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=2,
                                                                   eta_min=0.0625),
    "cosine_annealing": lambda: lr.CosineAnnealingDecay(0.5, T_max=4, eta_min=0.0625),
    "multiplicative": lambda: lr.MultiplicativeDecay(0.5, lr_lambda=lambda e: 0.875),
    "linear_lr": lambda: lr.LinearLR(0.5, total_steps=6, start_factor=0.25, end_factor=0.75),
    "inverse_time": lambda: lr.InverseTimeDecay(0.5, gamma=0.25),
    "natural_exp": lambda: lr.NaturalExpDecay(0.5, gamma=0.25),
    "piecewise": lambda: lr.PiecewiseDecay([2, 5], [0.5, 0.25, 0.125]),
    "multistep": lambda: lr.MultiStepDecay(0.5, milestones=[2, 5], gamma=0.25),
}
METRICS = [4.0, 3.0, 3.5, 3.25, 3.0, 3.0, 2.0, 2.0, 2.0, 2.5, 2.5, 2.5, 2.5, 2.5]

# ----- Paddle 3.3.1's numbers -------------------------------------------------------------------
PARAMS_AFTER = {  # w (2x3, row-major) then b (3): after step 1 and after step 4
    'momentum_nesterov_l2': (
        [0.11872589893015434, -0.2644957026810648, 0.9137478481210717, 0.7951175592083942,
         0.5286842407994201, -1.5260236652850425, 0.31295692595753, 0.3433174098934393,
         -0.00437084471860423],
        [-0.7783028839393689, 0.9451490407802313, 0.4875286440598614, 0.609829026341433,
         0.704485915511798, -1.5932235784632434, -0.6914119672278863, 2.001583843080992,
         -0.3151253209007743]),
    'adam': (
        [0.23438804229180407, -0.48438229506634795, 0.9843979604746922, 0.7655949174137247,
         0.14062088426657787, -1.515589215453044, 0.4843842556902647, -0.23437782866502882,
         0.046900239718600495],
        [0.18741734315017686, -0.43721848607476343, 0.9375825881038615, 0.8122173650530914,
         0.18745497087362728, -1.5621499472593505, 0.43750871398524527, -0.18742901087513458,
         0.00014172238695016326]),
    'adamw_decay_fun': (
        [0.23341147979180407, -0.48242917006634795, 0.9804917104746922, 0.7626652299137247,
         0.14013260301657787, -1.509729840453044, 0.4843842556902647, -0.23437782866502882,
         0.046900239718600495],
        [0.1838885234315889, -0.42981225672446366, 0.9223920367653385, 0.8001700147401383,
         0.18515909409683437, -1.5384959410547498, 0.43749508850491803, -0.18741983879294088,
         0.000118684391920117]),
    'adamax_l1': (
        [0.234375, -0.484375, 0.984375, 0.765625, 0.140625, -1.515625, 0.484375, -0.234375,
         0.046875],
        [0.18845330075809222, -0.44028146039576366, 0.9375545077107784, 0.8140293162806596,
         0.1877384991094278, -1.5645732156265055, 0.4376812714797615, -0.1880974133393493,
         -0.0002473126558813904]),
    'adagrad': (
        [0.1304482452726703, -0.37680666154908826, 0.8898240089273025, 0.852320471890098,
         0.2494025357929577, -1.59596619217827, 0.3778530056303195, -0.12529024783076187,
         -0.04520778491544879],
        [-0.12395493883032986, -0.09862612046650293, 0.6665859931271505, 0.9158938024667133,
         0.44572819909530015, -1.7436870062192615, 0.14735341569249905, 0.11092797725837268,
         -0.2537828002132255]),
    'adadelta': (
        [0.18758914011205202, -0.43752790892204896, 0.937775379273516, 0.812029083327647,
         0.18749111616240347, -1.5618362703564885, 0.4375449193871598, -0.18750419610629335,
         0.0003324050911018145],
        [-0.0453526842926808, -0.17549964695775216, 0.7238271060597825, 0.9532165619239239,
         0.3854682188749161, -1.7324596257562743, 0.2243663140259255, 0.03434277909128344,
         -0.20415906500584532]),
    'rmsprop_centered': (
        [0.21398417939344389, -0.46393708767893316, 0.9641271300468678, 0.7857232366141205,
         0.1610775535289568, -1.5355761401256394, 0.46395017471781447, -0.21391883823135266,
         0.026670816475504074],
        [0.03904720027335959, -0.28009025586691544, 0.7958947936310811, 0.9342044615492018,
         0.3259451718213256, -1.688391741790524, 0.29505328477190257, -0.04179245559824665,
         -0.13832265167855723]),
    'lamb_exclude': (
        [0.23650620633539177, -0.48609215544275874, 0.9852868166449067, 0.761842575689658,
         0.13788742399859874, -1.5106100945789227, 0.4843842556902647, -0.23437782866502882,
         0.046900239718600495],
        [0.195887459940176, -0.4440895587797688, 0.941100402573463, 0.7972438942933505,
         0.1765546788940521, -1.5423128049726293, 0.43750101763739724, -0.187430955964813,
         0.00012599835771180332]),
    'nadam': (
        [0.23267410538587668, -0.48266772720932527, 0.9826851124225786, 0.7673069835747957,
         0.14233580116221184, -1.5173006556323494, 0.48266990307759206, -0.23266277047039438,
         0.045187641890086366],
        [0.190053965484765, -0.43851792528975897, 0.9408621930075761, 0.8082101325013581,
         0.18400509782065455, -1.558005190498019, 0.44070050783373793, -0.19034512221680036,
         0.003642019349069568]),
    'radam': (
        [0.23173483824002206, -0.4673330914544378, 0.989631389017296, 0.7579102093511991,
         0.18291331788206003, -1.5066473539692917, 0.4742561233510757, -0.16572865126522296,
         0.05306909249555654],
        [0.17381379911387423, -0.3247744728397807, 0.958431337614873, 0.7797570723212018,
         0.3409812531698918, -1.5261340297547206, 0.3952788711511857, 0.10285617837252357,
         0.024872752626595544]),
    'asgd': (
        [0.10387870592017637, -0.2386647316355026, 0.9170511121383677, 0.8132816748095933,
         0.5883065430564802, -1.5531788317543342, 0.2940489868086057, 0.4241707898782163,
         -0.012947260035547692],
        [-0.583519286744856, 0.6977079928530833, 0.6517972166120962, 0.7501161647978812,
         0.6208046791185118, -1.6762355650609082, -0.44445061992383655, 1.7375803674070978,
         -0.2373259692948252]),
    'rprop': (
        [0.1875, -0.4375, 0.9375, 0.8125, 0.1875, -1.5625, 0.4375, -0.1875, 0.0],
        [-0.15625, -0.09375, 0.59375, 1.03125, 0.53125, -1.90625, 0.09375, 0.15625, -0.34375]),
    'sgd_param_l1_beats_optimizer_l2': (
        [0.07262870592017637, -0.2074147316355026, 0.8858011121383677, 0.7820316748095933,
         0.5570565430564802, -1.5219288317543342, 0.2627989868086057, 0.4397957898782163,
         -0.016853510035547692],
        [-0.6378743487381789, 0.5280949477670249, 0.500427770278166, 0.4385164924991794,
         0.3797225605885589, -1.5386686440257942, -0.5472782414585724, 1.297296249751616,
         -0.23998660713019238]),
    'sgd_groups': (
        [0.17303310296008817, -0.3615198658177513, 0.9429005560691839, 0.7699220874047967,
         0.3547001465282401, -1.5031519158771671, 0.2784239868086057, 0.4397957898782163,
         -0.028572260035547692],
        [-0.19733131841784762, 0.13327220427055517, 0.7653942834517661, 0.6358791047391367,
         0.3559285773103285, -1.4955053507056273, -0.5656691701825114, 1.5830412119115005,
         -0.2148373849639983]),
    'sgd_clip_global_need_clip': (
        [0.10387870592017637, -0.2386647316355026, 0.9170511121383677, 0.8132816748095933,
         0.5883065430564802, -1.5531788317543342, 0.49092186771197677, -0.22028316821365704,
         0.05917435378560104],
        [-0.5534432618850367, 0.8973379615040598, 0.656952548595073, 0.9173730523226836,
         1.1017117767840907, -1.6827650747881282, 0.4465822686686657, -0.14033048374622234,
         0.04552632044644449]),
    'sgd_clip_value': (
        [0.21875, -0.484375, 0.96875, 0.765625, 0.140625, -1.53125, 0.46875, -0.234375, 0.03125],
        [0.125, -0.4375, 0.875, 0.8125, 0.1875, -1.625, 0.375, -0.1875, -0.0625]),
    'sgd_clip_norm_float32': (
        [0.241902694106102, -0.48551809787750244, 0.9954034090042114, 0.7535067796707153,
         0.15067411959171295, -1.5029468536376953, 0.49092185497283936, -0.2202831655740738,
         0.05917435511946678],
        [0.21781930327415466, -0.43180274963378906, 0.9821889400482178, 0.7631416916847229,
         0.22111615538597107, -1.5112768411636353, 0.46433237195014954, -0.13089558482170105,
         0.04959233105182648]),
}

RATES = {  # the rate at steps 0..13
    'noam':
        [0.0, 0.0625, 0.125, 0.1875, 0.25, 0.22360679774997896, 0.2041241452319315,
         0.18898223650461363, 0.1767766952966369, 0.16666666666666666, 0.15811388300841897,
         0.15075567228888181, 0.14433756729740643, 0.1386750490563073],
    'polynomial_cycle':
        [0.5, 0.30859375, 0.171875, 0.08984375, 0.0625, 0.1240234375, 0.08984375, 0.0693359375,
         0.0625, 0.08984375, 0.07465277777777778, 0.06553819444444445, 0.0625, 0.077880859375],
    'linear_warmup_step':
        [0.125, 0.21875, 0.3125, 0.40625, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125,
         0.0625],
    'one_cycle_three_phase':
        [0.125, 0.47500000000000003, 0.8250000000000001, 0.825, 0.475, 0.125, 0.1095, 0.094,
         0.0785, 0.063, 0.0475, 0.032, 0.0165, 0.0010000000000000009],
    'one_cycle_cos':
        [0.040000000000000036, 0.253326288150591, 0.703688047535243, 0.9907769345935507,
         0.9836490667763628, 0.9190521480406758, 0.8117637264392739, 0.6727152589579328,
         0.5160741862069491, 0.35780043306381537, 0.21402027577192137, 0.09938325974711526,
         0.025569579282016214, 0.0001],
    'cyclic_triangular2':
        [0.125, 0.5624999999999999, 0.9999999999999998, 0.7083333333333333, 0.41666666666666663,
         0.125, 0.3437500000000002, 0.5624999999999999, 0.41666666666666663, 0.2708333333333335,
         0.125, 0.2343750000000001, 0.34374999999999994, 0.2708333333333333],
    'cyclic_exp_range':
        [0.125, 0.3802083333333334, 0.5716145833333333, 0.711181640625, 0.4669392903645835,
         0.2745984395345051, 0.125, 0.23953630526860575, 0.3254385342200595, 0.3880755761638284,
         0.2784607527622331, 0.19213907933347715, 0.125, 0.1764033576146933],
    'cosine_warm_restarts':
        [0.5, 0.28125, 0.5, 0.43592960838455724, 0.28125, 0.12657039161544276, 0.5,
         0.483348647736844, 0.43592960838455724, 0.3649620008298634, 0.28125, 0.19753799917013662,
         0.12657039161544276, 0.07915135226315603],
    'cosine_annealing':
        [0.5, 0.43592960838455724, 0.28125, 0.12657039161544276, 0.0625, 0.1265703916154427,
         0.28125, 0.43592960838455735, 0.5000000000000001, 0.4359296083845574, 0.2812500000000001,
         0.12657039161544292, 0.0625, 0.1265703916154427],
    'multiplicative':
        [0.5, 0.4375, 0.3828125, 0.3349609375, 0.2930908203125, 0.2564544677734375,
         0.2243976593017578, 0.19634795188903809, 0.17180445790290833, 0.15032890066504478,
         0.1315377880819142, 0.11509556457167491, 0.10070861900021555, 0.0881200416251886],
    'linear_lr':
        [0.125, 0.16666666666666666, 0.20833333333333331, 0.24999999999999997, 0.29166666666666663,
         0.33333333333333326, 0.3749999999999999, 0.3749999999999999, 0.3749999999999999,
         0.3749999999999999, 0.3749999999999999, 0.3749999999999999, 0.3749999999999999,
         0.3749999999999999],
    'inverse_time':
        [0.5, 0.4, 0.3333333333333333, 0.2857142857142857, 0.25, 0.2222222222222222, 0.2,
         0.18181818181818182, 0.16666666666666666, 0.15384615384615385, 0.14285714285714285,
         0.13333333333333333, 0.125, 0.11764705882352941],
    'natural_exp':
        [0.5, 0.38940039153570244, 0.3032653298563167, 0.23618327637050734, 0.18393972058572117,
         0.14325239843009505, 0.11156508007421491, 0.08688697172522257, 0.06766764161830635,
         0.052699612280932166, 0.0410424993119494, 0.031963930603353785, 0.024893534183931972,
         0.019387103915861004],
    'piecewise':
        [0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125],
    'multistep':
        [0.5, 0.5, 0.125, 0.125, 0.125, 0.03125, 0.03125, 0.03125, 0.03125, 0.03125, 0.03125,
         0.03125, 0.03125, 0.03125],
}
PLATEAU_RATES = [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2]

LBFGS_AFTER = {  # line_search_fn -> (the loss step 1 returned, then w and b after step 3)
    None: (
        [5.707328252544065, -1.012516832892568, 1.8141781454547485, -0.2461772782329966,
         -0.30011922727914364, 1.9388808695284778, -1.7464481272633867, -1.8032768065052949,
         3.6000407829716354, -1.0155009964350066]),
    'strong_wolfe': (
        [5.707328252544065, -1.13288463333748, 1.113184084068982, -0.14562877774729716,
         -1.113471311100858, 1.580907767052217, -1.5401206775997116, -2.542387572400764,
         3.5758493257376873, -1.0881647066043727]),
}

# ----- the same runs in core --------------------------------------------------------------------
def _params(name: str):
    dtype = "float32" if name.endswith("float32") else "float64"
    attr = core.ParamAttr(**W_ATTR[name]) if name in W_ATTR else None
    w = core.create_parameter([2, 3], dtype, attr=attr)
    b = core.create_parameter([3], dtype)
    w.set_value(W0.astype(dtype))
    b.set_value(B0.astype(dtype))
    return w, b, dtype


def _loss(w, b, dtype):
    y = core.tanh(core.matmul(core.to_tensor(X.astype(dtype)), w) + b)
    return (y * core.to_tensor(C.astype(dtype))).sum()


def _run(name: str, steps: int = 4) -> list:
    w, b, dtype = _params(name)
    opt = OPTIMIZERS[name]([w, b], w, b)
    out = []
    for _ in range(steps):
        _loss(w, b, dtype).backward()
        opt.step()
        opt.clear_grad()
        out.append(np.concatenate([w.numpy().ravel(), b.numpy().ravel()]))
    return out


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_the_parameters_follow_paddles_after_each_step(name):
    first, last = PARAMS_AFTER[name]
    got = _run(name)
    rtol = 1e-6 if name.endswith("float32") else 1e-12
    np.testing.assert_allclose(got[0], first, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(got[3], last, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_a_schedule_gives_paddles_rates(name):
    scheduler = SCHEDULES[name]()
    got = [scheduler()]
    for _ in range(13):
        scheduler.step()
        got.append(scheduler())
    np.testing.assert_allclose(got, RATES[name], rtol=1e-12, atol=1e-15)


def test_reduce_on_plateau_gives_paddles_rates_for_the_same_metrics():
    scheduler = lr.ReduceOnPlateau(1.0, factor=0.5, patience=1, threshold=0.1, cooldown=1,
                                   min_lr=0.2)
    got = []
    for metric in METRICS:
        scheduler.step(metric)
        got.append(scheduler())
    assert got == PLATEAU_RATES


def test_a_schedule_inside_an_optimizer_steps_as_paddles():
    """Paddle 3.3.1: SGD(StepDecay(0.5, step_size=2, gamma=0.25)) with the scheduler stepped
    after each update gives these rates to the optimizer (``get_lr``)."""
    w, b, _ = _params("adam")
    opt = opt_mod.SGD(lr.StepDecay(0.5, step_size=2, gamma=0.25), parameters=[w, b])
    got = []
    for _ in range(5):
        got.append(opt.get_lr())
        opt._learning_rate.step()
    assert got == [0.5, 0.5, 0.125, 0.125, 0.03125]



@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_gives_paddles_iterates(line_search_fn):
    """Paddle 3.3.1's LBFGS(learning_rate=0.5, max_iter=3, history_size=2) on the same loss,
    three ``step(closure)`` calls."""
    w, b, dtype = _params("lbfgs")
    opt = opt_mod.LBFGS(learning_rate=0.5, max_iter=3, history_size=2,
                        line_search_fn=line_search_fn, parameters=[w, b])

    def closure():
        opt.clear_grad()
        loss = _loss(w, b, dtype)
        loss.backward()
        return loss

    first = float(opt.step(closure))
    opt.step(closure)
    opt.step(closure)
    expected = LBFGS_AFTER[line_search_fn]
    assert first == pytest.approx(expected[0], rel=1e-12)
    got = np.concatenate([w.numpy().ravel(), b.numpy().ravel()])
    np.testing.assert_allclose(got, expected[1:], rtol=1e-10, atol=1e-12)

# ----- minimize: Paddle's signature and return value ---------------------------------------------
def test_minimize_takes_paddles_positional_arguments_and_returns_its_pair():
    """Paddle 3.3.1's dygraph ``minimize(loss, startup_program=None, parameters=None,
    no_grad_set=None)`` returns ``(optimize_ops, params_grads)``: ``[]`` and the pairs it
    updated from. Core's additions (docs/paddle.md): ``parameters`` may name them (Paddle's
    annotation allows names, its dygraph raises TypeError), and ``no_grad_set`` is honoured
    (Paddle's dygraph ignores it and updates ``b`` too)."""
    w, b, dtype = _params("adam")
    opt = opt_mod.SGD(0.125, parameters=[w, b])
    loss = _loss(w, b, dtype)
    loss.backward()
    grad_w = w.grad.numpy().copy()
    ops, params_grads = opt.minimize(loss, None, [w.name, b.name], {b.name})
    assert ops == []
    assert [p is w for p, _ in params_grads] == [True]
    np.testing.assert_array_equal(params_grads[0][1].numpy(), grad_w)
    np.testing.assert_allclose(w.numpy(), W0 - 0.125 * grad_w)
    np.testing.assert_array_equal(b.numpy(), B0)  # in no_grad_set


def test_minimize_returns_the_gradients_before_clipping():
    w, b, dtype = _params("adam")
    opt = opt_mod.SGD(0.125, parameters=[w, b], grad_clip=core.nn.ClipGradByValue(1e-3))
    _loss(w, b, dtype).backward()
    grads = [w.grad.numpy().copy(), b.grad.numpy().copy()]
    _, params_grads = opt.minimize(None)
    for (_, grad), expected in zip(params_grads, grads):
        np.testing.assert_array_equal(grad.numpy(), expected)


def test_minimize_refuses_a_name_that_is_not_one_of_its_parameters():
    w, b, _ = _params("adam")
    opt = opt_mod.SGD(0.125, parameters=[w])
    with pytest.raises(ValueError, match=r"minimize: parameters names 'nope', which is not one"):
        opt.minimize(None, parameters=["nope"])


# ----- where core keeps its own behaviour (docs/paddle.md, "Learning-rate schedules") ----------
def test_get_lr_is_the_current_rate_where_paddles_recomputes_the_next():
    """Paddle 3.3.1's ``CosineAnnealingDecay.get_lr()`` called again after ``step()`` applies
    its recursive formula once more (0.4634... here, while the rate is 0.4813...); core's
    returns the current rate."""
    scheduler = lr.CosineAnnealingDecay(0.5, T_max=8, eta_min=0.01)
    scheduler.step()
    assert scheduler.get_lr() == scheduler() == pytest.approx(0.48135048546526527, rel=1e-12)


def test_warm_restarts_resume_where_they_stopped():
    """Paddle 3.3.1's state dict of ``CosineAnnealingWarmRestarts`` lacks ``T_cur``, so a
    resumed Paddle schedule restarts its cycle (0.4522... at epoch 8 with T_0=5); core's
    continues as if never stopped (0.1727..., the rate of epoch 8)."""
    first = lr.CosineAnnealingWarmRestarts(0.5, T_0=5)
    for _ in range(7):
        first.step()
    resumed = lr.CosineAnnealingWarmRestarts(0.5, T_0=5)
    resumed.set_state_dict(first.state_dict())
    resumed.step()
    first.step()
    assert resumed() == first() == pytest.approx(0.17274575140626316, rel=1e-12)
