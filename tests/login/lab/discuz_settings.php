<?php
// Changes Discuz! X3.5 settings as the admin centre does (common_setting, then the setting
// cache rebuilt): login-seccode=0|1 is ACP > 防灌水 > 验证码 > 启用验证码 "登录" (the lab's
// install asks a CAPTCHA at login), secqaa-login=0|1 the same for the question (安全提问).
// usage: runuser -u www-data -- php discuz_settings.php DISCUZ_ROOT login-seccode=0 ...
define('ACC_ROOT', rtrim($argv[1], '/'));
define('ACC_ARGS', json_encode(array_slice($argv, 2)));
chdir(ACC_ROOT);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['HTTP_HOST'] = '127.0.0.1:' . (getenv('DISCUZ_PORT') ?: '18089');
$_SERVER['SERVER_PORT'] = getenv('DISCUZ_PORT') ?: '18089';
$_SERVER['SCRIPT_FILENAME'] = ACC_ROOT . '/forum.php';
$_SERVER['DOCUMENT_ROOT'] = ACC_ROOT;
$_SERVER['HTTP_USER_AGENT'] = 'Mozilla/5.0 (X11; Linux x86_64) acceptance-seed';
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = '/forum.php';
$_SERVER['REQUEST_URI'] = '/forum.php';
define('APPTYPEID', 2);
define('CURSCRIPT', 'forum');
require ACC_ROOT . '/source/class/class_core.php';
$discuz = C::app();
$discuz->init_cron = false;
$discuz->init();
require_once libfile('function/cache');
foreach (json_decode(ACC_ARGS, true) as $arg) {
    [$name, $value] = explode('=', $arg, 2);
    if ($name === 'login-seccode') {
        $data = dunserialize(C::t('common_setting')->fetch_setting('seccodedata'));
        $data['rule']['login']['allow'] = (string)(int)$value;
        C::t('common_setting')->update_setting('seccodedata', $data);
    } elseif ($name === 'secqaa-login') {
        $data = dunserialize(C::t('common_setting')->fetch_setting('secqaa'));
        $data['status'] = $value ? ((int)$data['status'] | 2) : ((int)$data['status'] & ~2);
        C::t('common_setting')->update_setting('secqaa', $data);
    } else {
        fwrite(STDERR, "unknown setting $name\n");
        exit(2);
    }
    fwrite(STDERR, "[discuz] $name=$value\n");
}
updatecache('setting');
