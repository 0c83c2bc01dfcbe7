<?php
// Discuz! X3.5 settings for the attachment checks on the engine lab, written as the admin
// centre writes them (the table, then its cache rebuilt), and a member's credits:
//   getattach=N   ACP > 积分 > 积分策略 > 下载附件: a download costs N of extcredits2 (0: free)
//   attachexpire=H  ACP > 附件 > 附件链接有效期: tokenised links expire after H hours ('': never)
//   credits=USER  prints USER's extcredits2 (after the changes)
// usage: runuser -u www-data -- php -d mysqli.default_socket=SOCK discuz_attach_settings.php
//        DISCUZ_ROOT getattach=2 attachexpire= credits=alice
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
    if ($name === 'getattach') {
        DB::query("UPDATE %t SET extcredits2=%d WHERE action='getattach'",
                  ['common_credit_rule', -(int)$value]);
        updatecache('creditrule');
    } elseif ($name === 'attachexpire') {
        C::t('common_setting')->update_setting('attachexpire', $value);
        updatecache('setting');
    } elseif ($name === 'credits') {
        $uid = DB::result_first("SELECT uid FROM %t WHERE username=%s", ['common_member', $value]);
        $count = C::t('common_member_count')->fetch($uid);
        echo "$value extcredits2=" . $count['extcredits2'] . "\n";
        continue;
    } else {
        fwrite(STDERR, "unknown setting $name\n");
        exit(2);
    }
    fwrite(STDERR, "[discuz] $name=$value\n");
}
